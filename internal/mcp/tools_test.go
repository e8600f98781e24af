package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/look"
	registry "studio/internal/tool"
)

// TestRefuse: each error becomes the refusal SPEC §4.2 names, and an error
// of ours is logged once and never sent.
func TestRefuse(t *testing.T) {
	var logged bytes.Buffer
	s := New(Options{Log: func(context.Context) *slog.Logger { return slog.New(slog.NewTextHandler(&logged, nil)) }})
	cause := errors.New("disk on fire at /var/lib/studio")
	tests := []struct {
		tool string
		err  error
		want string
		logs bool
	}{
		{"start_develop", cause, "ENQUEUE_FAILED: " + ErrEnqueueFailed.Message, true},
		{"start_develop", fmt.Errorf("submit: %w", errs.Wrap(job.ErrSubmitFailed, cause)), "ENQUEUE_FAILED: " + ErrEnqueueFailed.Message, true},
		{"check_balance", cause, "INTERNAL: " + errs.Internal.Message, true},
		{"start_develop", context.Canceled, "ENQUEUE_FAILED: " + ErrEnqueueFailed.Message, false},
		{"start_develop", ledger.Insufficient(18, 2, 58), "INSUFFICIENT_TOKENS: The develop needs 18 tokens; the house can spend 2 and already holds 58 for develops in flight.", false},
		{"start_develop", errs.Msg(errs.Forbidden, "A viewer may not spend tokens."), "FORBIDDEN: A viewer may not spend tokens.", false},
		{"start_develop", errs.NotFound, "ASSET_NOT_FOUND: " + job.ErrAssetNotFound.Message, false},
		{"start_develop", job.ErrAssetNotFound, "ASSET_NOT_FOUND: " + job.ErrAssetNotFound.Message, false},
		{"start_develop", errs.Msg(job.ErrNoImage, "The tool upscale needs an input named image."), "NO_INPUTS: The tool upscale needs an input named image.", false},
		{"start_develop", job.ErrEmptyImage, "NO_INPUTS: " + job.ErrEmptyImage.Message, false},
		{"start_develop", errs.With(job.ErrUnknownTool, "legal", []string{"upscale"}), "UNKNOWN_TOOL: That tool does not exist; list_capabilities names the tools.", false},
		{"get_develop", errs.NotFound, "NOT_FOUND: No develop has this id in this house.", false},
		{"get_develop", errs.Wrap(errs.NotFound, cause), "NOT_FOUND: No develop has this id in this house.", true},
		{"list_develops", ErrBadStatus, "BAD_STATUS: " + ErrBadStatus.Message, false},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+tt.want, func(t *testing.T) {
			logged.Reset()
			r := s.refuse(context.Background(), s.tool(tt.tool), tt.err)
			var got map[string]any
			raw, _ := r.StructuredContent.(json.RawMessage)
			if err := json.Unmarshal(raw, &got); err != nil || !r.IsError || got["error"] != tt.want {
				t.Errorf("refuse(%v) = %s; want isError and %q", tt.err, raw, tt.want)
			}
			code, msg, _ := strings.Cut(tt.want, ": ")
			if got["code"] != code || got["message"] != msg {
				t.Errorf("code %v, message %v; want %s, %s", got["code"], got["message"], code, msg)
			}
			if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != string(raw) || !strings.HasPrefix(r.Content[0].Text, `{"error":"`+code+": ") {
				t.Errorf("content %+v; want the text %s, the error first", r.Content, raw)
			}
			if strings.Contains(r.Content[0].Text, "fire") {
				t.Errorf("the cause leaked: %s", r.Content[0].Text)
			}
			if logs := strings.Contains(logged.String(), "disk on fire"); logs != tt.logs {
				t.Errorf("logged %q; want the cause logged: %v", logged.String(), tt.logs)
			}
		})
	}
	// The HTTP body's fields ride along: need, spendable and held of a 402.
	r := s.refuse(context.Background(), s.tool("develop_lookbook"), ledger.Insufficient(64, 60, 4))
	var got map[string]any
	if err := json.Unmarshal(r.StructuredContent.(json.RawMessage), &got); err != nil ||
		got["need"] != 64.0 || got["spendable"] != 60.0 || got["held"] != 4.0 || !strings.HasPrefix(got["error"].(string), "INSUFFICIENT_TOKENS: The lookbook needs 64 tokens") {
		t.Errorf("a 402: %s; want need, spendable and held beside the error", r.StructuredContent)
	}
}

// TestToolSchemas: every tool declares an object inputSchema and an
// outputSchema that is anyOf its success shape or a refusal.
func TestToolSchemas(t *testing.T) {
	for _, tool := range New(Options{}).listed() {
		if tool.InputSchema["type"] != "object" || tool.Title == "" || tool.Description == "" {
			t.Errorf("%s: inputSchema %v", tool.Name, tool.InputSchema)
		}
		branches, _ := tool.OutputSchema["anyOf"].([]any)
		if tool.OutputSchema["type"] != "object" || len(branches) != 2 {
			t.Fatalf("%s: outputSchema %v", tool.Name, tool.OutputSchema)
		}
		if success := branches[0].(schema); success["type"] != "object" || len(success["required"].([]string)) == 0 {
			t.Errorf("%s: success shape %v", tool.Name, success)
		}
		if _, err := json.Marshal(tool); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
}

// TestArgumentsRefuseControlCharacters: a control character anywhere in a
// tool's arguments (a known member, a params value, an unknown member, a
// key) is BAD_ARGUMENTS before the tool runs (DECISIONS §10).
func TestArgumentsRefuseControlCharacters(t *testing.T) {
	for _, raw := range []string{
		`{"tool":"upscale\u0000"}`,
		`{"tool":"upscale","params":{"runId":"a\u0001b"}}`,
		`{"tool":"upscale","inputs":{"image\u0000":"x"}}`,
		`{"tool":"upscale","later":["\u001b"]}`,
	} {
		_, err := decodeArgs[startArgs](json.RawMessage(raw))
		if e, ok := errs.As(err); !ok || e.Code != "BAD_ARGUMENTS" {
			t.Errorf("%s: %v; want BAD_ARGUMENTS", raw, err)
		}
	}
	if _, err := decodeArgs[startArgs](json.RawMessage(`{"tool":"upscale","params":{"note":"tab\tline\nend"}}`)); err != nil {
		t.Errorf("tab and newline: %v", err)
	}
}

// TestPricesAreTheCatalogs: a spending tool's description states the
// billing catalog's prices of the tool it queues, read from the live
// table, so tools/list and the catalog agree (issue 31).
func TestPricesAreTheCatalogs(t *testing.T) {
	prices := registry.DefaultPrices()
	jobs := job.NewService(nil, nil, nil, prices, time.Now)
	want := fmt.Sprintf("Price per frame, as the billing catalog lists %s: %d tokens at 1k, %d at 2k, %d at 4k.", look.Tool,
		prices.Tool(look.Tool, ledger.Tier1K), prices.Tool(look.Tool, ledger.Tier2K), prices.Tool(look.Tool, ledger.Tier4K))
	priced := 0
	for _, lt := range New(Options{Jobs: jobs}).listed() {
		switch lt.Name {
		case "develop_look", "develop_variations", "develop_lookbook":
			priced++
			if !strings.HasSuffix(lt.Description, " "+want) {
				t.Errorf("%s: description %q; want it to end %q", lt.Name, lt.Description, want)
			}
		case "check_balance", "get_look":
			if strings.Contains(lt.Description, "Price per frame") {
				t.Errorf("%s spends nothing, yet states a price: %q", lt.Name, lt.Description)
			}
		}
	}
	if priced != 3 {
		t.Errorf("found %d of the three look tools", priced)
	}
}
