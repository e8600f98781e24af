// Package chat is the studio assistant (SPEC §4.12): a draft look the
// director composes, typed mutations that change it (each with its
// inverse, so undo is posting the inverse and redo the mutation again), a
// conversation with the OpenAI-compatible endpoint that chooses mutations
// as tool calls, and the sessions and turns that keep the conversation.
//
// Applying a mutation is pure: Apply reads nothing but the draft and the
// mutation; the service only checks that the assets named are the house's.
package chat

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/look"
)

// Codes raised by drafts and mutations.
var (
	ErrBadDraft      = errs.New(errs.KindInvalid, "BAD_DRAFT", "The draft does not have the expected shape.")
	ErrBadMutation   = errs.New(errs.KindInvalid, "BAD_MUTATION", "The mutation does not have the expected shape.")
	ErrCannotApply   = errs.New(errs.KindUnprocessable, "CANNOT_APPLY", "The mutation cannot apply to this draft.")
	ErrAssetNotFound = errs.AssetNotFound
)

// Reasons a mutation cannot apply (CANNOT_APPLY {reason}).
const (
	ReasonNotInDraft     = "not-in-draft"     // remove-item or set-hero of a piece the draft does not hold
	ReasonAlreadyInDraft = "already-in-draft" // add-item of a piece the draft holds, or of the cast model
	ReasonTooManyItems   = "too-many-items"   // add-item past 6 pieces
	ReasonModelIsPiece   = "model-is-a-piece" // set-model to an asset the draft holds as a piece
	ReasonQualityTooLow  = "quality-too-low-for-output"
)

// Limits of a draft's text.
const (
	MaxName  = 200
	maxLabel = 80
)

// Draft is the look being composed in the conversation (SPEC §4.12): not
// stored; the client holds it and sends it with each turn.
type Draft struct {
	Name         string           `json:"name" maxLength:"200" description:"The look's working name; may be empty."`
	ModelAssetID string           `json:"modelAssetId" description:"The cast model asset; empty while none is chosen."`
	Items        []look.Item      `json:"items" maxItems:"6" description:"The pieces, the hero first; exactly one is the hero while any are present."`
	Background   *look.Background `json:"background,omitempty" description:"What the look stands on; absent while none is chosen."`
	Aesthetic    string           `json:"aesthetic" description:"One of editorial, minimal, street, studio, romantic, noir; empty while none is chosen."`
	Quality      string           `json:"quality" enum:"1k,2k,4k" description:"The tier the look would develop at; 1k when not given."`
	Output       look.Output      `json:"output" description:"The output destination; web-tile when not given."`
}

// Ops are the mutation kinds, in the order the assistant's tools list them.
var Ops = []string{"rename", "set-model", "add-item", "remove-item", "set-hero", "set-background", "set-aesthetic", "set-quality", "set-output"}

// Mutation is one typed change of a draft. Which fields it reads depends on
// op: rename name; set-model assetId (empty clears the model); add-item
// assetId, role, label, hero, position; remove-item assetId; set-hero
// assetId, position;
// set-background background (absent clears it); set-aesthetic aesthetic
// (empty clears it); set-quality quality; set-output output.
type Mutation struct {
	Op         string           `json:"op" required:"true" enum:"rename,set-model,add-item,remove-item,set-hero,set-background,set-aesthetic,set-quality,set-output"`
	Name       string           `json:"name,omitempty" maxLength:"200"`
	AssetID    string           `json:"assetId,omitempty"`
	Role       string           `json:"role,omitempty" enum:"top,bottom,dress,outerwear,shoes,bag,accessory,jewelry"`
	Label      string           `json:"label,omitempty"`
	Hero       bool             `json:"hero,omitempty" description:"add-item: the new piece becomes the hero."`
	Position   *int             `json:"position,omitempty" minimum:"0" description:"add-item: where a piece that is not the hero goes (at least 1, after the hero; the end when absent). set-hero: where the previous hero goes (1 when absent)."`
	Background *look.Background `json:"background,omitempty"`
	Aesthetic  string           `json:"aesthetic,omitempty"`
	Quality    string           `json:"quality,omitempty" enum:"1k,2k,4k"`
	Output     *look.Output     `json:"output,omitempty"`
}

// Applied is one mutation that applied, with the inverse that undoes it.
type Applied struct {
	Mutation Mutation `json:"mutation"`
	Inverse  Mutation `json:"inverse" description:"Post it to /api/chat/apply to undo the mutation."`
}

// ParseDraft reads a draft from its JSON: absent or null is the empty
// draft. It answers BAD_DRAFT when the shape or a value is wrong.
func ParseDraft(raw json.RawMessage) (Draft, error) {
	var d Draft
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &d); err != nil {
			return Draft{}, errs.Msg(ErrBadDraft, "The draft is not a draft object.")
		}
	}
	if err := d.Check(); err != nil {
		return Draft{}, err
	}
	return d, nil
}

func badDraft(msg string) error { return errs.Msg(ErrBadDraft, msg) }

// Check validates a draft and fills its defaults (quality 1k, output
// web-tile, the first piece the hero when none is).
func (d *Draft) Check() error {
	d.Name = strings.TrimSpace(d.Name)
	d.ModelAssetID = strings.TrimSpace(d.ModelAssetID)
	if len(d.Name) > MaxName {
		return badDraft("The draft's name may be at most 200 characters.")
	}
	if d.Items == nil {
		d.Items = []look.Item{}
	}
	if len(d.Items) > look.MaxItems {
		return badDraft("A draft holds at most 6 pieces.")
	}
	heroes := 0
	seen := map[string]bool{}
	for i, it := range d.Items {
		it.AssetID = strings.TrimSpace(it.AssetID)
		if it.AssetID == "" || seen[it.AssetID] || it.AssetID == d.ModelAssetID {
			return badDraft("Each piece needs an assetId, once, other than the model's.")
		}
		if !slices.Contains(look.ItemRoles, it.Role) {
			return badDraft("The role " + strconv.Quote(it.Role) + " is not one of the legal roles.")
		}
		seen[it.AssetID] = true
		it.Label = cleanLabel(it.Label)
		if it.Hero {
			heroes++
		}
		d.Items[i] = it
	}
	if heroes > 1 {
		return badDraft("Only one piece may be the hero.")
	}
	if heroes == 0 && len(d.Items) > 0 {
		d.Items[0].Hero = true
	}
	// The hero leads.
	slices.SortStableFunc(d.Items, func(a, b look.Item) int {
		switch {
		case a.Hero == b.Hero:
			return 0
		case a.Hero:
			return -1
		}
		return 1
	})
	if d.Background != nil {
		if err := d.Background.Check(); err != nil {
			return badDraft("The background must be {kind: preset, value} with a legal preset, or {kind: asset, assetId}.")
		}
	}
	if d.Aesthetic != "" && look.CheckAesthetic(d.Aesthetic) != nil {
		return badDraft("The aesthetic must be one of the legal values, or empty.")
	}
	if d.Quality == "" {
		d.Quality = string(ledger.Tier1K)
	}
	tier, ok := ledger.ParseTier(d.Quality)
	if !ok {
		return badDraft("quality must be 1k, 2k or 4k.")
	}
	if d.Output.Destination == "" {
		d.Output = look.Output{Destination: look.DefaultDestination.Name}
	}
	dest, err := d.Output.Parse()
	if err != nil {
		return badDraft("The output is not a legal destination.")
	}
	if _, err := look.Restoration(dest, tier); err != nil {
		return badDraft("The quality is too low for the draft's output.")
	}
	return nil
}

func cleanLabel(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxLabel || strings.ContainsAny(s, "\x00\n\r") {
		return ""
	}
	return s
}

// AssetIDs lists every asset the draft names.
func (d Draft) AssetIDs() []string {
	var ids []string
	if d.ModelAssetID != "" {
		ids = append(ids, d.ModelAssetID)
	}
	for _, it := range d.Items {
		ids = append(ids, it.AssetID)
	}
	if d.Background != nil && d.Background.Kind == "asset" {
		ids = append(ids, d.Background.AssetID)
	}
	return ids
}

func (d Draft) clone() Draft {
	c := d
	c.Items = slices.Clone(d.Items)
	if d.Background != nil {
		b := *d.Background
		c.Background = &b
	}
	return c
}

func (d Draft) item(id string) int {
	return slices.IndexFunc(d.Items, func(it look.Item) bool { return it.AssetID == id })
}

func badMutation(msg string) error {
	return errs.With(errs.Msg(ErrBadMutation, msg), "legal", Ops)
}

// ParseMutation reads a mutation from its JSON and checks its shape.
func ParseMutation(raw json.RawMessage) (Mutation, error) {
	var m Mutation
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" || json.Unmarshal(raw, &m) != nil {
		return Mutation{}, badMutation("mutation must be an object {op, ...}.")
	}
	if err := m.Check(); err != nil {
		return Mutation{}, err
	}
	return m, nil
}

// Check validates a mutation's shape: the op is known and the fields it
// reads are legal. It keeps only the fields its op reads.
func (m *Mutation) Check() error {
	m.AssetID = strings.TrimSpace(m.AssetID)
	var c Mutation
	c.Op = m.Op
	switch m.Op {
	case "rename":
		c.Name = strings.TrimSpace(m.Name)
		if len(c.Name) > MaxName {
			return badMutation("rename: the name may be at most 200 characters.")
		}
	case "set-model":
		c.AssetID = m.AssetID
	case "add-item":
		if m.AssetID == "" || !slices.Contains(look.ItemRoles, m.Role) {
			return errs.With(errs.Msg(ErrBadMutation, "add-item needs an assetId and one of the legal roles."), "legal", look.ItemRoles)
		}
		if m.Position != nil && *m.Position < 0 {
			return badMutation("add-item: position must be at least 0.")
		}
		c.AssetID, c.Role, c.Label, c.Hero, c.Position = m.AssetID, m.Role, cleanLabel(m.Label), m.Hero, m.Position
	case "remove-item", "set-hero":
		if m.AssetID == "" {
			return badMutation(m.Op + " needs the assetId of a piece.")
		}
		if m.Position != nil && *m.Position < 0 {
			return badMutation(m.Op + ": position must be at least 0.")
		}
		c.AssetID = m.AssetID
		if m.Op == "set-hero" {
			c.Position = m.Position
		}
	case "set-background":
		if m.Background != nil {
			b := *m.Background
			if err := b.Check(); err != nil {
				return errs.With(errs.Msg(ErrBadMutation, "set-background: the background must be {kind: preset, value} or {kind: asset, assetId}."), "legal", look.BackgroundPresets)
			}
			c.Background = &b
		}
	case "set-aesthetic":
		if m.Aesthetic != "" && look.CheckAesthetic(m.Aesthetic) != nil {
			return errs.With(errs.Msg(ErrBadMutation, "set-aesthetic: the aesthetic must be one of the legal values."), "legal", look.Aesthetics)
		}
		c.Aesthetic = m.Aesthetic
	case "set-quality":
		if _, ok := ledger.ParseTier(m.Quality); !ok || m.Quality == "" {
			return errs.With(errs.Msg(ErrBadMutation, "set-quality: quality must be 1k, 2k or 4k."), "legal", []string{"1k", "2k", "4k"})
		}
		c.Quality = m.Quality
	case "set-output":
		if m.Output == nil {
			return badMutation("set-output needs an output.")
		}
		if _, err := m.Output.Parse(); err != nil {
			if e, ok := errs.As(err); ok {
				return errs.With(errs.Msg(ErrBadMutation, "set-output: "+e.Message), "legal", e.Fields["legal"])
			}
			return badMutation("set-output: the output is not a legal destination.")
		}
		o := *m.Output
		c.Output = &o
	default:
		return badMutation("The op " + strconv.Quote(m.Op) + " is not one of the legal ops.")
	}
	*m = c
	return nil
}

// AssetIDs lists the assets the mutation names.
func (m Mutation) AssetIDs() []string {
	var ids []string
	if m.AssetID != "" {
		ids = append(ids, m.AssetID)
	}
	if m.Background != nil && m.Background.Kind == "asset" {
		ids = append(ids, m.Background.AssetID)
	}
	return ids
}

func cannot(reason, msg string) error {
	return errs.With(errs.Msg(ErrCannotApply, msg), "reason", reason)
}

// Apply applies a checked mutation to a checked draft and returns the new
// draft and the inverse that undoes it. It changes neither argument. A
// mutation that cannot apply is CANNOT_APPLY with a reason.
func Apply(d Draft, m Mutation) (Draft, Applied, error) {
	out := d.clone()
	inv := Mutation{Op: m.Op}
	switch m.Op {
	case "rename":
		inv.Name = d.Name
		out.Name = m.Name
	case "set-model":
		if m.AssetID != "" && d.item(m.AssetID) >= 0 {
			return Draft{}, Applied{}, cannot(ReasonModelIsPiece, "That asset is one of the draft's pieces.")
		}
		inv.AssetID = d.ModelAssetID
		out.ModelAssetID = m.AssetID
	case "add-item":
		if d.item(m.AssetID) >= 0 || m.AssetID == d.ModelAssetID {
			return Draft{}, Applied{}, cannot(ReasonAlreadyInDraft, "The draft already holds that asset.")
		}
		if len(d.Items) >= look.MaxItems {
			return Draft{}, Applied{}, cannot(ReasonTooManyItems, "A draft holds at most 6 pieces.")
		}
		// The hero leads: a new hero goes first, another piece after it.
		hero := m.Hero || len(out.Items) == 0
		at := 0
		if !hero {
			at = len(out.Items)
			if m.Position != nil {
				at = min(max(*m.Position, 1), at)
			}
		} else if len(out.Items) > 0 {
			out.Items[0].Hero = false
		}
		out.Items = slices.Insert(out.Items, at, look.Item{AssetID: m.AssetID, Role: m.Role, Label: m.Label, Hero: hero})
		inv = Mutation{Op: "remove-item", AssetID: m.AssetID}
	case "remove-item":
		i := d.item(m.AssetID)
		if i < 0 {
			return Draft{}, Applied{}, cannot(ReasonNotInDraft, "The draft does not hold that piece.")
		}
		it := d.Items[i]
		out.Items = slices.Delete(out.Items, i, i+1)
		if it.Hero && len(out.Items) > 0 {
			out.Items[0].Hero = true // the hero leads; the next piece takes it
		}
		pos := i
		inv = Mutation{Op: "add-item", AssetID: it.AssetID, Role: it.Role, Label: it.Label, Hero: it.Hero, Position: &pos}
	case "set-hero":
		i := d.item(m.AssetID)
		if i < 0 {
			return Draft{}, Applied{}, cannot(ReasonNotInDraft, "The draft does not hold that piece.")
		}
		inv.AssetID = d.Items[0].AssetID
		if i == 0 {
			break
		}
		// The new hero leads; the previous one takes position (1 when not
		// given) among the rest, so the inverse puts both back exactly.
		prev := d.Items[0]
		prev.Hero = false
		rest := slices.Clone(d.Items[1:])
		rest = slices.Delete(rest, i-1, i)
		at := 1
		if m.Position != nil {
			at = min(max(*m.Position, 1), len(rest)+1)
		}
		chosen := d.Items[i]
		chosen.Hero = true
		out.Items = append([]look.Item{chosen}, rest...)
		out.Items = slices.Insert(out.Items, at, prev)
		back := i
		inv.Position = &back
	case "set-background":
		inv.Background = d.Background
		out.Background = m.Background
	case "set-aesthetic":
		inv.Aesthetic = d.Aesthetic
		out.Aesthetic = m.Aesthetic
	case "set-quality":
		inv.Quality = d.Quality
		out.Quality = m.Quality
	case "set-output":
		o := d.Output
		inv.Output = &o
		out.Output = *m.Output
	default:
		return Draft{}, Applied{}, badMutation("The op " + strconv.Quote(m.Op) + " is not one of the legal ops.")
	}
	if m.Op == "set-quality" || m.Op == "set-output" {
		tier, _ := ledger.ParseTier(out.Quality)
		dest, err := out.Output.Parse()
		if err == nil {
			_, err = look.Restoration(dest, tier)
		}
		if err != nil {
			return Draft{}, Applied{}, cannot(ReasonQualityTooLow, "The quality is too low for the output destination.")
		}
	}
	return out, Applied{Mutation: m, Inverse: inv}, nil
}
