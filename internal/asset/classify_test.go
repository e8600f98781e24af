package asset

import (
	"context"
	"errors"
	"testing"

	"studio/internal/ai"
	"studio/internal/ai/aitest"
	"studio/internal/ai/openai"
)

func TestParseClassification(t *testing.T) {
	for _, tt := range []struct {
		name, content string
		want          Classification
		ok            bool
	}{
		{"plain", `{"kind":"clothes","name":"Slip dress","fit":"loose","wearer":"women"}`, Classification{Clothes, "Slip dress", "loose", Women}, true},
		{"fenced", "```json\n{\"kind\":\"Jewelry\",\"name\":\"Gold hoop\",\"fit\":\"loose\"}\n```", Classification{Kind: Jewelry, Name: "Gold hoop"}, true},
		{"unisex is a person's word", `{"kind":"clothes","name":"Tee","wearer":"unisex","fit":"auto"}`, Classification{Kind: Clothes, Name: "Tee"}, true},
		{"mark is not read", `{"kind":"mark","name":"Logo"}`, Classification{Name: "Logo"}, true},
		{"only a kind", `{"kind":"background","name":null}`, Classification{Kind: Background}, true},
		{"long name cut", `{"name":"` + repeat("a", 100) + `"}`, Classification{Name: repeat("a", 80)}, true},
		{"nothing legal", `{"kind":"shoe","name":"  "}`, Classification{}, false},
		{"no object", `I cannot tell.`, Classification{}, false},
		{"broken object", `{"kind":`, Classification{}, false},
	} {
		got, err := ParseClassification(tt.content)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v ok=%v", tt.name, got, err, tt.want, tt.ok)
		}
	}
}

func TestVisionClassifier(t *testing.T) {
	srv := aitest.New(t)
	srv.RequireKey("k")
	srv.Answer(aitest.Answer{Content: `{"kind":"model","name":"Studio portrait","fit":null,"wearer":"unisex"}`})
	v := &VisionClassifier{AI: openai.New(openai.Config{BaseURL: srv.URL + "/", APIKey: "k"})}
	c, err := v.Classify(context.Background(), []byte{0xFF, 0xD8, 0xFF})
	if err != nil || c != (Classification{Kind: Model, Name: "Studio portrait"}) {
		t.Fatalf("got %+v, %v", c, err)
	}
	got := srv.Chats()[0]
	if got.Model != openai.DefaultModel || len(got.Messages) != 2 || got.ResponseFormat == nil ||
		got.ResponseFormat.Type != "json_schema" || !got.ResponseFormat.JSONSchema.Strict {
		t.Errorf("request %s", got.Raw)
	}
	if urls := got.Messages[1].ImageURLs(); len(urls) != 1 || urls[0] != "data:image/jpeg;base64,/9j/" {
		t.Errorf("user message %s", got.Messages[1].Content)
	}
	// Clothes keep fit and wearer; an answer outside the schema twice, or
	// a provider out of credit, is no classification.
	srv.Answer(aitest.Answer{Content: `{"kind":"clothes","name":"Wide trousers","fit":"loose","wearer":"men"}`})
	if c, err := v.Classify(context.Background(), []byte{0xFF, 0xD8, 0xFF}); err != nil || c != (Classification{Clothes, "Wide trousers", "loose", Men}) {
		t.Errorf("clothes: %+v %v", c, err)
	}
	srv.Answer(aitest.Answer{Content: `{"kind":"shoe","name":"x","fit":null,"wearer":null}`}, aitest.Answer{Content: `I cannot tell.`})
	if _, err := v.Classify(context.Background(), []byte{0xFF, 0xD8, 0xFF}); !errors.Is(err, ai.ErrBadOutput) {
		t.Errorf("bad answers read as a classification: %v", err)
	}
	srv.Answer(aitest.Answer{Err: aitest.OutOfCredit()})
	if _, err := v.Classify(context.Background(), []byte{0xFF, 0xD8, 0xFF}); !errors.Is(err, ai.ErrNeedsBilling) {
		t.Errorf("a 429 read as a classification: %v", err)
	}
}
