package httpapi

import (
	"os"
	"testing"
)

func TestOpenAPIScratch(t *testing.T) {
	s := &Server{}
	doc, err := buildOpenAPI(s.table())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/real.json", doc, 0o644)
	if _, err := NewResponseValidator(doc); err != nil {
		t.Fatal(err)
	}
}
