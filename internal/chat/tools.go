package chat

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"studio/internal/ai"
	"studio/internal/look"
)

// The assistant's tools: one function per mutation op, with arguments in
// the strict JSON-schema subset (every property required, optional values
// nullable, no extra properties).

func obj(props map[string]any) map[string]any {
	req := slices.Sorted(maps.Keys(props))
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func nullable(desc string) map[string]any {
	return map[string]any{"type": []string{"string", "null"}, "description": desc}
}

func oneOf(values []string, null bool, desc string) map[string]any {
	enum := make([]any, 0, len(values)+1)
	for _, v := range values {
		enum = append(enum, v)
	}
	typ := any("string")
	if null {
		enum = append(enum, nil)
		typ = []string{"string", "null"}
	}
	return map[string]any{"type": typ, "enum": enum, "description": desc}
}

func destinations() []string {
	out := []string{}
	for _, d := range look.Destinations {
		out = append(out, d.Name)
	}
	return append(out, look.Custom)
}

// Tools are the mutations as the assistant's functions.
func Tools() []ai.Tool {
	return []ai.Tool{
		{Name: "rename", Description: "Rename the draft look.",
			Parameters: obj(map[string]any{"name": str("The new name.")})},
		{Name: "set-model", Description: "Cast a model (a house asset of kind model), or clear the model with null.",
			Parameters: obj(map[string]any{"assetId": nullable("The model asset's id, or null to clear.")})},
		{Name: "add-item", Description: "Add a piece (a house asset) to the look in a role; hero makes it the piece the look sells.",
			Parameters: obj(map[string]any{"assetId": str("The piece's asset id."), "role": oneOf(look.ItemRoles, false, "Its role in the look."),
				"hero": map[string]any{"type": "boolean", "description": "True to make it the hero."}})},
		{Name: "remove-item", Description: "Take a piece out of the look.",
			Parameters: obj(map[string]any{"assetId": str("The piece's asset id.")})},
		{Name: "set-hero", Description: "Make one of the look's pieces the hero.",
			Parameters: obj(map[string]any{"assetId": str("The piece's asset id.")})},
		{Name: "set-background", Description: "Stand the look on a preset ground or a background asset; both null clears it.",
			Parameters: obj(map[string]any{"preset": oneOf(look.BackgroundPresets, true, "A preset ground, or null."),
				"assetId": nullable("A background asset's id, or null.")})},
		{Name: "set-aesthetic", Description: "Set the look's grade and mood, or clear it with null.",
			Parameters: obj(map[string]any{"aesthetic": oneOf(look.Aesthetics, true, "The aesthetic, or null.")})},
		{Name: "set-quality", Description: "Set the tier the look develops at.",
			Parameters: obj(map[string]any{"quality": oneOf([]string{"1k", "2k", "4k"}, false, "The tier.")})},
		{Name: "set-output", Description: "Set where the frames go: a named destination, or custom with width and height.",
			Parameters: obj(map[string]any{"destination": oneOf(destinations(), false, "The destination."),
				"width":  map[string]any{"type": []string{"integer", "null"}, "description": "Pixels, for custom; else null."},
				"height": map[string]any{"type": []string{"integer", "null"}, "description": "Pixels, for custom; else null."}})},
	}
}

// toolArgs are the union of every tool's arguments.
type toolArgs struct {
	Name        string  `json:"name"`
	AssetID     *string `json:"assetId"`
	Role        string  `json:"role"`
	Hero        bool    `json:"hero"`
	Preset      *string `json:"preset"`
	Aesthetic   *string `json:"aesthetic"`
	Quality     string  `json:"quality"`
	Destination string  `json:"destination"`
	Width       *int    `json:"width"`
	Height      *int    `json:"height"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// FromToolCall turns the assistant's call into a checked mutation.
func FromToolCall(tc ai.ToolCall) (Mutation, error) {
	var a toolArgs
	if err := json.Unmarshal(tc.Arguments, &a); err != nil {
		return Mutation{}, fmt.Errorf("arguments: %w", err)
	}
	m := Mutation{Op: tc.Name}
	switch tc.Name {
	case "rename":
		m.Name = a.Name
	case "set-model", "remove-item", "set-hero":
		m.AssetID = deref(a.AssetID)
	case "add-item":
		m.AssetID, m.Role, m.Hero = deref(a.AssetID), a.Role, a.Hero
	case "set-background":
		switch {
		case a.Preset != nil:
			m.Background = &look.Background{Kind: "preset", Value: *a.Preset}
		case a.AssetID != nil:
			m.Background = &look.Background{Kind: "asset", AssetID: *a.AssetID}
		}
	case "set-aesthetic":
		m.Aesthetic = deref(a.Aesthetic)
	case "set-quality":
		m.Quality = a.Quality
	case "set-output":
		o := look.Output{Destination: a.Destination}
		if a.Width != nil && a.Height != nil {
			o.Width, o.Height = *a.Width, *a.Height
		}
		m.Output = &o
	}
	if err := m.Check(); err != nil {
		return Mutation{}, err
	}
	return m, nil
}
