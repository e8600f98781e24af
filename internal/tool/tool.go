// Package tool declares the studio's develop tools, each once: the input
// roles it takes, the options it reads, its default price at each quality,
// the engines that can perform it, its render deadline and what an engine
// that performs it only as a proof or a composite says of it. The submit
// check, the engines' own check, the billing catalog, MCP
// list_capabilities, the OpenAPI document and every engine read this
// table; nothing else lists a tool.
//
// It sits just above package ledger (tiers and price rows) and below
// everything that develops, so job, engine, the engines, billing, mcp and
// httpapi all import it.
package tool

import (
	"maps"
	"slices"
	"strings"
	"time"

	"studio/internal/ledger"
)

// The engines, as Engine.Name answers.
const (
	Local    = "local"     // the embedded engine (package engine/local)
	Lookbook = "lookbook"  // the local engine's look frames (local.Lookbook)
	Fal      = "fal"       // fal.ai's queue API (package engine/fal)
	ImageAPI = "image-api" // an OpenAI-compatible image edit endpoint (package engine/imageapi)
	Fashn    = "fashn"     // FASHN's prediction API (package engine/fashn)
	Service  = "service"   // not an engine: an option the service reads (runs)
)

// Tool is one develop tool.
type Tool struct {
	Name  string
	Title string // the display name (my-access)
	// Submit: the submit route and MCP start_develop take it. Look frames
	// (lookbook) are queued by the look routes only.
	Submit bool
	Roles  []Role
	// Options are what its engines read from the develop's params, in the
	// order refusals check them.
	Options []Option
	// Prices is its row of the default price table (DECISIONS §4). The live
	// table is configuration (DefaultPrices builds the default one).
	Prices ledger.TierPrices
	// ProofPrices are, by engine, the row an engine that performs the tool
	// only as a proof charges instead of Prices (DECISIONS §11: the local
	// engine's look frames cost 1 token at every quality). The live table
	// takes the row of the engine that serves the tool (Priced), so what
	// the catalog lists is what a develop holds and settles.
	ProofPrices map[string]ledger.TierPrices
	// Engines can perform it (by Engine.Name); an engine serves it when it
	// is configured and, for fal, has a model for it.
	Engines []string
	// Video: it makes a video, not a still. A develop whose result is
	// not one (or, for a still tool, is not a picture) fails, its hold
	// voided (issue 27).
	Video bool
	// Aspect names the option whose value (or default) the result's
	// aspect must have, within 3%, where the engine serving the develop
	// reads that option; "" when the tool promises no aspect. A develop
	// sized for a destination (outputWidth, outputHeight) must have its
	// aspect whatever the tool.
	Aspect string
	// Deadline is how long a claimed develop of it may render; 0 is the
	// configured default (STUDIO_RENDER_DEADLINE, DECISIONS §11).
	Deadline time.Duration
	// Notes say, by engine, what an engine makes of the tool when it
	// performs it only as a proof or a composite (DECISIONS §10), or
	// answers it below the tier asked (Native).
	Notes map[string]string
	// Native is, by engine, the highest tier an engine answers the tool
	// at without enlarging its answer, where that is below 4k: a develop
	// at a higher tier on it is that answer enlarged, priced at this
	// tier's price (issue 27: a resampled answer is priced at the quality
	// delivered, and its Note says so).
	Native map[string]ledger.Tier
	// Restored is, by engine, the note that replaces Notes where the
	// engine sends an answer below the tier through a restoration model
	// (fal's, issue 27): the tool is then charged at the tier asked, not
	// at Native's.
	Restored map[string]string
}

// Role is an input role of a tool.
type Role struct {
	Name     string
	Required bool
	// Most is how many inputs a develop may send in the role; 0 is one.
	Most int
}

// Limit is how many inputs a develop may send in the role.
func (r Role) Limit() int { return max(1, r.Most) }

// Required lists the roles a develop must fill, in order.
func (t Tool) Required() []string {
	var out []string
	for _, r := range t.Roles {
		if r.Required {
			out = append(out, r.Name)
		}
	}
	return out
}

// Optional lists the roles a develop may fill, in order.
func (t Tool) Optional() []string {
	var out []string
	for _, r := range t.Roles {
		if !r.Required {
			out = append(out, r.Name)
		}
	}
	return out
}

// RoleNames lists every role the tool takes, required ones first.
func (t Tool) RoleNames() []string { return append(t.Required(), t.Optional()...) }

// Role returns the tool's role of that name.
func (t Tool) Role(name string) (Role, bool) {
	i := slices.IndexFunc(t.Roles, func(r Role) bool { return r.Name == name })
	if i < 0 {
		return Role{}, false
	}
	return t.Roles[i], true
}

// Takes reports whether the tool takes an input in the role.
func (t Tool) Takes(role string) bool {
	_, ok := t.Role(role)
	return ok
}

// ServedBy reports whether the engine named engine can perform the tool.
func (t Tool) ServedBy(engine string) bool { return slices.Contains(t.Engines, engine) }

// PricesOn is the tool's row of the default table when the engine named
// engine performs it: its proof row on that engine, else Prices.
func (t Tool) PricesOn(engine string) ledger.TierPrices {
	if p, ok := t.ProofPrices[engine]; ok {
		return p
	}
	return t.Prices
}

// Note is what the engine named engine says of the tool ("" when it
// performs it fully).
func (t Tool) Note(engine string) string { return t.Notes[engine] }

// Settings name, by engine, the setting that configures it; the local
// engine needs none (it is always there).
var Settings = map[string]string{Fal: "FAL_KEY", ImageAPI: "AI_IMAGE_BASE_URL", Fashn: "FASHN_API_KEY"}

// Unserved says what would serve the tool when no configured engine
// performs it: every setting of an engine that can (issue 27). It is the
// catalog's note for the tool and its 503's message.
func (t Tool) Unserved() string {
	var set []string
	for _, e := range t.Engines {
		if v := Settings[e]; v != "" && !slices.Contains(set, v) {
			set = append(set, v)
		}
	}
	s := "No engine configured here performs " + t.Name
	switch n := len(set); n {
	case 0:
		return s + "."
	case 1:
		return s + "; set " + set[0] + " to develop it."
	default:
		return s + "; set " + strings.Join(set[:n-1], ", ") + " or " + set[n-1] + " to develop it."
	}
}

// DeadlineOr is the tool's render deadline: its own, or def.
func (t Tool) DeadlineOr(def time.Duration) time.Duration {
	if t.Deadline > 0 {
		return t.Deadline
	}
	return def
}

// Option returns the option the tool declares under name.
func (t Tool) Option(name string) (Option, bool) {
	i := slices.IndexFunc(t.Options, func(o Option) bool { return o.Name == name })
	if i < 0 {
		return Option{}, false
	}
	return t.Options[i], true
}

// byName indexes the registry.
var byName = func() map[string]int {
	m := make(map[string]int, len(registry))
	for i, t := range registry {
		m[t.Name] = i
	}
	return m
}()

// Get returns the tool named name.
func Get(name string) (Tool, bool) {
	i, ok := byName[name]
	if !ok {
		return Tool{}, false
	}
	return registry[i].clone(), true
}

// All returns every tool, in the price table's order.
func All() []Tool {
	out := make([]Tool, len(registry))
	for i, t := range registry {
		out[i] = t.clone()
	}
	return out
}

// Names lists every tool, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(byName))
}

// SubmitTools lists the tools submit and MCP start_develop take, sorted.
func SubmitTools() []string {
	var out []string
	for _, t := range registry {
		if t.Submit {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// ServedBy lists the tools the engine named engine can perform, sorted.
func ServedBy(engine string) []string {
	var out []string
	for _, t := range registry {
		if t.ServedBy(engine) {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Serves reports whether the engine named engine can perform the tool.
func Serves(engine, name string) bool {
	t, ok := Get(name)
	return ok && t.ServedBy(engine)
}

// SubmitRoles maps every input role of a submit tool to the most inputs a
// submit may send in it: the bound the multipart reader enforces while it
// reads.
func SubmitRoles() map[string]int {
	out := map[string]int{}
	for _, t := range registry {
		if !t.Submit {
			continue
		}
		for _, r := range t.Roles {
			out[r.Name] = max(out[r.Name], r.Limit())
		}
	}
	return out
}

// Options returns the options the tool declares (nil for a tool that
// does not exist), internal ones included, in declaration order.
func Options(name string) []Option {
	t, _ := Get(name)
	return t.Options
}

// Declared reports whether the tool declares the option name.
func Declared(name, option string) bool {
	t, ok := Get(name)
	if !ok {
		return false
	}
	_, ok = t.Option(option)
	return ok
}

// DefaultPrices is the default price list: each tool's row, in the
// registry's order, in ledger's list of lanes, text tools, plans and packs.
func DefaultPrices() ledger.Prices {
	rows := make([]ledger.ToolPrice, len(registry))
	for i, t := range registry {
		rows[i] = ledger.ToolPrice{Tool: t.Name, Prices: t.Prices}
	}
	return ledger.DefaultPrices(rows)
}

// Priced returns p with each tool's row set to the row of the engine that
// serves it, as serving names it ("" when none does), where that engine
// performs the tool only as a proof (Tool.ProofPrices), and with its tiers
// above the engine's native one at that one's price where the engine
// answers below 4k and enlarges by resampling (Tool.Native: priced at the
// quality delivered, issue 27). Where serving says the engine restores
// its answers through a restoration model (restored), the tiers keep
// their price: the tier asked is the tier delivered. It is the live table
// of a process whose engines are built; p itself is not changed.
func Priced(p ledger.Prices, serving func(tool string) (engine string, restored bool)) ledger.Prices {
	p.Tools = slices.Clone(p.Tools)
	for i, row := range p.Tools {
		t, ok := Get(row.Tool)
		if !ok {
			continue
		}
		on, restored := serving(row.Tool)
		if proof, ok := t.ProofPrices[on]; ok {
			p.Tools[i].Prices = proof
		}
		if native, ok := t.Native[on]; ok && !restored {
			p.Tools[i].Prices = capped(p.Tools[i].Prices, native)
		}
	}
	return p
}

// capped is row with every tier above native at native's price: an answer
// enlarged beyond the quality its engine delivers costs that quality.
func capped(row ledger.TierPrices, native ledger.Tier) ledger.TierPrices {
	at := row.At(native)
	if native.Pixels() < ledger.Tier2K.Pixels() {
		row.K2 = at
	}
	if native.Pixels() < ledger.Tier4K.Pixels() {
		row.K4 = at
	}
	return row
}

// clone copies the tool's slices and maps, so no caller edits the registry.
func (t Tool) clone() Tool {
	t.Roles = slices.Clone(t.Roles)
	t.Engines = slices.Clone(t.Engines)
	t.Notes = maps.Clone(t.Notes)
	t.ProofPrices = maps.Clone(t.ProofPrices)
	t.Native = maps.Clone(t.Native)
	t.Restored = maps.Clone(t.Restored)
	t.Options = slices.Clone(t.Options)
	for i, o := range t.Options {
		t.Options[i].Legal = slices.Clone(o.Legal)
		t.Options[i].Engines = slices.Clone(o.Engines)
		t.Options[i].Needs = maps.Clone(o.Needs)
	}
	return t
}
