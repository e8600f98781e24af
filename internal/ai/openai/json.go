package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"studio/internal/ai"
	"studio/internal/errs"
)

var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// schema is a compiled answer schema: what goes on the wire and what
// validates the answer.
type schema struct {
	wire     map[string]any
	resolved *jsonschema.Resolved
}

func compileSchema(s any) (*schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("ai: schema: %w", err)
	}
	var wire map[string]any
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, fmt.Errorf("ai: schema: %w", err)
	}
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, fmt.Errorf("ai: schema: %w", err)
	}
	resolved, err := js.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("ai: schema: %w", err)
	}
	return &schema{wire: wire, resolved: resolved}, nil
}

// check parses an answer and validates it, tolerating a code fence or
// prose around one JSON object. It returns the JSON text that passed.
func (s *schema) check(content string) ([]byte, error) {
	var v any
	text := strings.TrimSpace(content)
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		start, end := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
		if start < 0 || end < start {
			return nil, fmt.Errorf("no JSON object in the answer: %w", err)
		}
		text = text[start : end+1]
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("the answer is not JSON: %w", err)
		}
	}
	if err := s.resolved.Validate(v); err != nil {
		return nil, fmt.Errorf("the answer is outside the schema: %w", err)
	}
	return []byte(text), nil
}

// dataURL renders image bytes as a data URL of their sniffed type.
func dataURL(b []byte) string {
	return "data:" + http.DetectContentType(b) + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// visionTypes are the image types chat endpoints read.
var visionTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/webp": true, "image/gif": true}

func userParts(text string, images [][]byte, urls []string) ([]sdk.ChatCompletionContentPartUnionParam, error) {
	parts := []sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart(text)}
	for i, b := range images {
		if ct := http.DetectContentType(b); !visionTypes[ct] {
			return nil, fmt.Errorf("ai: image %d is %s, not JPEG, PNG, WebP or GIF", i+1, ct)
		}
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: dataURL(b)}))
	}
	for _, u := range urls {
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: u}))
	}
	return parts, nil
}

// JSON asks for an answer in req.Schema and decodes it into out. An answer
// outside the schema (or a refusal, or one cut off at the token limit) is
// asked again once, with the reason; a second miss is AI_BAD_OUTPUT. The
// usage is tallied on the meter ctx carries (ai.WithMeter), answered or not.
func (c *Client) JSON(ctx context.Context, req ai.Request, out any) (ai.Usage, error) {
	u, err := c.json(ctx, req, out)
	ai.Tally(ctx, u)
	return u, err
}

func (c *Client) json(ctx context.Context, req ai.Request, out any) (ai.Usage, error) {
	start := c.now()
	var u ai.Usage
	if !c.Configured() {
		return u, ai.ErrNotConfigured
	}
	name := req.SchemaName
	if name == "" {
		name = "answer"
	}
	if !schemaName.MatchString(name) {
		return u, fmt.Errorf("ai: schema name %q", name)
	}
	sc, err := compileSchema(req.Schema)
	if err != nil {
		return u, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()

	var msgs []sdk.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, sdk.SystemMessage(req.System))
	}
	parts, err := userParts(req.User, req.Images, req.ImageURLs)
	if err != nil {
		return u, err
	}
	msgs = append(msgs, sdk.UserMessage(parts))
	params := sdk.ChatCompletionNewParams{
		Model:    shared.ChatModel(c.cfg.Model),
		Messages: msgs,
		ResponseFormat: sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Strict: sdk.Bool(true), Schema: sc.wire},
		}},
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = sdk.Int(req.MaxTokens)
	}
	var miss error
	for attempt := 0; attempt < 2; attempt++ {
		res, err := c.chat.New(ctx, params)
		if err != nil {
			u.Latency = c.now().Sub(start)
			return u, failure(err)
		}
		answered(&u, res.Model, res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.TotalTokens, statedCost(res.Usage.JSON.ExtraFields))
		content, err := answerText(res)
		if err == nil {
			var text []byte
			if text, err = sc.check(content); err == nil {
				if err = json.Unmarshal(text, out); err == nil {
					u.Latency = c.now().Sub(start)
					return u, nil
				}
			}
		}
		miss = err
		params.Messages = append(params.Messages,
			sdk.AssistantMessage(content),
			sdk.UserMessage("That answer cannot be used: "+err.Error()+". Answer again with one JSON object that matches the schema."))
	}
	u.Latency = c.now().Sub(start)
	return u, wrapBadOutput(miss)
}

// answerText is the first choice's content, or why there is none usable.
func answerText(res *sdk.ChatCompletion) (string, error) {
	if len(res.Choices) == 0 {
		return "", errors.New("the answer has no choices")
	}
	ch := res.Choices[0]
	switch {
	case ch.Message.Refusal != "":
		return "", fmt.Errorf("the model refused: %s", ch.Message.Refusal)
	case ch.FinishReason == "length":
		return ch.Message.Content, errors.New("the answer was cut off at the token limit")
	}
	return ch.Message.Content, nil
}

func wrapBadOutput(cause error) error {
	return errs.Wrap(ai.ErrBadOutput, cause)
}

// statedCost reads usage.cost, the dollars a gateway (OpenRouter, LiteLLM)
// states for the call; OpenAI states none.
func statedCost(extra map[string]respjson.Field) float64 {
	f, ok := extra["cost"]
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(strings.Trim(f.Raw(), `"`), 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}
