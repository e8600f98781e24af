package blob_test

import (
	"errors"
	"strings"
	"testing"

	"studio/internal/blob"
	"studio/internal/blob/blobtest"
)

func TestCheckKey(t *testing.T) {
	good := []string{
		"a",
		"assets/0193f0c2-7d4e-7b1a-9c3e-2f1e4d5c6b7a/0193f0c2-7d4e-7b1a-9c3e-2f1e4d5c6b7b",
		"packs/house/pack.zip",
		"a..b",
		"name.with.dots.",
		"üñíçødé/ok",
		"spaces are fine",
		strings.Repeat("s", 200),
		strings.Repeat("abcdefghi/", 102) + "x", // 1021 bytes
	}
	for _, key := range good {
		if err := blob.CheckKey(key); err != nil {
			t.Errorf("CheckKey(%q) = %v; want nil", key, err)
		}
	}
	for _, key := range blobtest.BadKeys {
		if err := blob.CheckKey(key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("CheckKey(%q) = %v; want ErrBadKey", key, err)
		}
	}
}
