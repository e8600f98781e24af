package asset

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
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
	var got struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		ResponseFormat struct{ Type string } `json:"response_format"`
	}
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"{\"kind\":\"model\",\"name\":\"Studio portrait\"}"}}]}`))
	}))
	defer srv.Close()
	v := NewVisionClassifier(srv.URL+"/v1/", "k", "")
	c, err := v.Classify(context.Background(), []byte{0xFF, 0xD8, 0xFF})
	if err != nil || c != (Classification{Kind: Model, Name: "Studio portrait"}) {
		t.Fatalf("got %+v, %v", c, err)
	}
	if got.Model != DefaultVisionModel || len(got.Messages) != 2 || got.ResponseFormat.Type != "json_object" {
		t.Errorf("request %+v", got)
	}
	var parts []chatPart
	if err := json.Unmarshal(got.Messages[1].Content, &parts); err != nil || len(parts) != 2 ||
		parts[1].ImageURL == nil || parts[1].ImageURL.URL != "data:image/jpeg;base64,/9j/" {
		t.Errorf("user message %s", got.Messages[1].Content)
	}
	status = http.StatusTooManyRequests
	if _, err := v.Classify(context.Background(), []byte{1}); err == nil {
		t.Error("a 429 read as a classification")
	}
}
