package lane

import (
	"context"
	"fmt"
	"strings"

	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/errs"
)

// Bounds of the text tools.
const (
	MaxTextIn     = 2000 // a text field of a request, in characters
	MaxShots      = 12   // midjourney-prompts' count
	DefaultShots  = 4
	MaxCategories = 8
	MaxPromptOut  = 1500 // a prompt answered
	textMaxTokens = 2000
)

// text checks a text field: required ones must say something; every one is
// at most MaxTextIn characters.
func text(name, v string, required error) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" && required != nil {
		return "", required
	}
	if len([]rune(v)) > MaxTextIn {
		return "", errs.Msg(errs.BadBody, fmt.Sprintf("%s is at most %d characters.", name, MaxTextIn))
	}
	return v, nil
}

// ask runs a text tool: configured, held, asked, posted or voided.
func (s *Service) ask(ctx context.Context, p auth.Principal, tool string, req ai.Request, out any, check func() error) error {
	if err := s.configured(); err != nil {
		return err
	}
	_, err := s.charge(ctx, p, tool, s.price(tool), func(ctx context.Context, _ string) (bool, error) {
		req.MaxTokens = textMaxTokens
		if _, err := s.opts.AI.JSON(ctx, req, out); err != nil {
			return false, aiError(err)
		}
		return false, check()
	})
	return err
}

func strictObject(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

var stringList = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}

// KeywordsRequest is the body of inspiration-keywords.
type KeywordsRequest struct {
	Vibe string `json:"vibe" required:"true" description:"The mood to find words for, e.g. \"sun-bleached Riviera linen\"."`
}

// Category is a group of inspiration keywords.
type Category struct {
	Category string   `json:"category"`
	Keywords []string `json:"keywords"`
}

// Keywords is what inspiration-keywords answers.
type Keywords struct {
	OK         bool       `json:"ok"`
	Categories []Category `json:"categories"`
}

var keywordsSchema = strictObject(map[string]any{"categories": map[string]any{"type": "array", "items": strictObject(map[string]any{
	"category": map[string]any{"type": "string"}, "keywords": stringList,
})}})

const keywordsPrompt = `You are a fashion art director. Turn a vibe into inspiration keywords for a shoot, grouped in 4 to 8 categories
(e.g. palette, materials, silhouettes, setting, light, styling, props, references), 5 to 10 short English keywords each.`

// InspirationKeywords turns a vibe into grouped keywords.
func (s *Service) InspirationKeywords(ctx context.Context, p auth.Principal, in KeywordsRequest) (Keywords, error) {
	if err := p.MaySpend(); err != nil {
		return Keywords{}, err
	}
	vibe, err := text("vibe", in.Vibe, ErrVibeRequired)
	if err != nil {
		return Keywords{}, err
	}
	var ans Keywords
	out := Keywords{OK: true, Categories: []Category{}}
	err = s.ask(ctx, p, "inspiration-keywords", ai.Request{System: keywordsPrompt, User: "Vibe: " + vibe,
		Schema: keywordsSchema, SchemaName: "keywords"}, &ans, func() error {
		for _, c := range ans.Categories {
			name, kw := cutRunes(fold(c.Category), 40), words(c.Keywords, 12, MaxKeyword)
			if name != "" && len(kw) > 0 && len(out.Categories) < MaxCategories {
				out.Categories = append(out.Categories, Category{Category: name, Keywords: kw})
			}
		}
		if len(out.Categories) == 0 {
			return badOutput("no category with keywords")
		}
		return nil
	})
	return out, err
}

// ShotsRequest is the body of midjourney-prompts.
type ShotsRequest struct {
	Description string `json:"description" required:"true" description:"What the shoot is about."`
	Direction   string `json:"direction" description:"Art direction to follow: light, lens, mood, setting."`
	Count       *int   `json:"count" minimum:"1" maximum:"12" description:"How many shots; 4 when absent."`
}

// Shot is one prompt of a shot list.
type Shot struct {
	Label  string `json:"label"`
	Prompt string `json:"prompt"`
}

// Shots is what midjourney-prompts answers.
type Shots struct {
	OK    bool   `json:"ok"`
	Shots []Shot `json:"shots"`
}

var shotsSchema = strictObject(map[string]any{"shots": map[string]any{"type": "array", "items": strictObject(map[string]any{
	"label": map[string]any{"type": "string"}, "prompt": map[string]any{"type": "string"},
})}})

const shotsPrompt = `You write Midjourney prompts for a fashion shoot's shot list. Each shot has a short label (e.g. "Hero full-length")
and one prompt: subject, garment details, setting, light, lens and framing, mood, ending with Midjourney parameters such as --ar 4:5 --style raw.
Vary the shots (full-length, detail, movement, environment). Answer exactly the number of shots asked for.`

// MidjourneyPrompts writes a shot list of prompts.
func (s *Service) MidjourneyPrompts(ctx context.Context, p auth.Principal, in ShotsRequest) (Shots, error) {
	if err := p.MaySpend(); err != nil {
		return Shots{}, err
	}
	desc, err := text("description", in.Description, ErrDescriptionRequired)
	if err != nil {
		return Shots{}, err
	}
	dir, err := text("direction", in.Direction, nil)
	if err != nil {
		return Shots{}, err
	}
	n := DefaultShots
	if in.Count != nil {
		if *in.Count < 1 || *in.Count > MaxShots {
			return Shots{}, errs.Msg(errs.BadBody, fmt.Sprintf("count must be a whole number from 1 to %d.", MaxShots))
		}
		n = *in.Count
	}
	user := fmt.Sprintf("Shots: %d\nDescription: %s", n, desc)
	if dir != "" {
		user += "\nDirection: " + dir
	}
	var ans Shots
	out := Shots{OK: true, Shots: []Shot{}}
	err = s.ask(ctx, p, "midjourney-prompts", ai.Request{System: shotsPrompt, User: user, Schema: shotsSchema, SchemaName: "shots"},
		&ans, func() error {
			for _, sh := range ans.Shots {
				label, prompt := cutRunes(fold(sh.Label), 60), cutRunes(fold(sh.Prompt), MaxPromptOut)
				if prompt != "" && len(out.Shots) < n {
					out.Shots = append(out.Shots, Shot{Label: label, Prompt: prompt})
				}
			}
			if len(out.Shots) == 0 {
				return badOutput("no shot with a prompt")
			}
			return nil
		})
	return out, err
}

// BuildRequest is the body of prompt-builder.
type BuildRequest struct {
	Subject string `json:"subject" required:"true" description:"What the picture shows."`
	Vibe    string `json:"vibe" description:"The mood to give it."`
}

// Built is what prompt-builder answers.
type Built struct {
	OK     bool   `json:"ok"`
	Prompt string `json:"prompt"`
}

var builtSchema = strictObject(map[string]any{"prompt": map[string]any{"type": "string"}})

const buildPrompt = `You write one image-generation prompt for a fashion picture from a subject and an optional vibe:
the subject and garments first, then setting, light, lens and framing, mood. One paragraph of plain English, at most 1,200 characters.`

// PromptBuilder writes a prompt from a subject and a vibe.
func (s *Service) PromptBuilder(ctx context.Context, p auth.Principal, in BuildRequest) (Built, error) {
	if err := p.MaySpend(); err != nil {
		return Built{}, err
	}
	subject, err := text("subject", in.Subject, ErrSubjectRequired)
	if err != nil {
		return Built{}, err
	}
	vibe, err := text("vibe", in.Vibe, nil)
	if err != nil {
		return Built{}, err
	}
	user := "Subject: " + subject
	if vibe != "" {
		user += "\nVibe: " + vibe
	}
	var ans Built
	out := Built{OK: true}
	err = s.ask(ctx, p, "prompt-builder", ai.Request{System: buildPrompt, User: user, Schema: builtSchema, SchemaName: "prompt"},
		&ans, func() error {
			if out.Prompt = cutRunes(fold(ans.Prompt), MaxPromptOut); out.Prompt == "" {
				return badOutput("an empty prompt")
			}
			return nil
		})
	return out, err
}

// EnhanceRequest is the body of prompt-enhancer.
type EnhanceRequest struct {
	Prompt string `json:"prompt" required:"true" description:"The prompt to improve."`
	Intent string `json:"intent" description:"What the picture is for, to steer the changes."`
}

// Enhanced is what prompt-enhancer answers.
type Enhanced struct {
	OK       bool     `json:"ok"`
	Improved string   `json:"improved"`
	Notes    []string `json:"notes" description:"What was changed and why, one short sentence each."`
}

var enhancedSchema = strictObject(map[string]any{"improved": map[string]any{"type": "string"}, "notes": stringList})

const enhancePrompt = `You improve an image-generation prompt for a fashion picture: keep its subject and intent, make it specific
(garment details, setting, light, lens, framing, mood), remove contradictions and filler. Answer the improved prompt (at most 1,200
characters) and 1 to 6 short notes on what you changed and why.`

// PromptEnhancer improves a prompt.
func (s *Service) PromptEnhancer(ctx context.Context, p auth.Principal, in EnhanceRequest) (Enhanced, error) {
	if err := p.MaySpend(); err != nil {
		return Enhanced{}, err
	}
	prompt, err := text("prompt", in.Prompt, ErrPromptRequired)
	if err != nil {
		return Enhanced{}, err
	}
	intent, err := text("intent", in.Intent, nil)
	if err != nil {
		return Enhanced{}, err
	}
	user := "Prompt: " + prompt
	if intent != "" {
		user += "\nIntent: " + intent
	}
	var ans Enhanced
	out := Enhanced{OK: true, Notes: []string{}}
	err = s.ask(ctx, p, "prompt-enhancer", ai.Request{System: enhancePrompt, User: user, Schema: enhancedSchema, SchemaName: "enhanced"},
		&ans, func() error {
			if out.Improved = cutRunes(fold(ans.Improved), MaxPromptOut); out.Improved == "" {
				return badOutput("an empty prompt")
			}
			out.Notes = words(ans.Notes, 6, 200)
			return nil
		})
	return out, err
}
