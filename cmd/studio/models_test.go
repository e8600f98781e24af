package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"studio/internal/app"
	"studio/internal/blob"
	"studio/internal/sqlstore"
)

// TestModelsImport runs `studio models import DIR` on the embedded
// defaults: a folder's faces are loaded, a key imported again is updated
// in place, and a manifest with one bad face writes nothing.
func TestModelsImport(t *testing.T) {
	data := migratedData(t)
	getenv := func(k string) string {
		if k == "STUDIO_DATA_DIR" {
			return data
		}
		return ""
	}
	dir := t.TempDir()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 8, 10))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cover.png"), img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := func(name, second string) {
		doc := `{"faces": [{"key": "ines", "name": "` + name + `", "tier": "free", "images": ["cover.png"]}` + second + `]}`
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	imp := func() (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), []string{"models", "import", dir}, getenv, &out, io.Discard)
		return out.String(), err
	}
	manifest("Ines", "")
	if out, err := imp(); err != nil || !strings.Contains(out, "1 faces imported") {
		t.Fatalf("import: %v %q", err, out)
	}
	manifest("Ines Moreau", "")
	if _, err := imp(); err != nil {
		t.Fatalf("import again: %v", err)
	}
	manifest("Changed", `, {"key": "lea", "name": "Lea", "tier": "sale", "priceCents": 100, "images": ["missing.png"]}`)
	if _, err := imp(); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Fatalf("a face with a missing image: %v; want the import refused", err)
	}
	if err := run(context.Background(), []string{"models"}, getenv, &bytes.Buffer{}, io.Discard); err == nil {
		t.Error("models without import succeeded")
	}

	cfg, err := app.Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	faces, err := db.Faces(context.Background(), "any-house")
	if err != nil {
		t.Fatal(err)
	}
	if len(faces) != 1 || faces[0].Name != "Ines Moreau" || len(faces[0].Images) != 1 {
		t.Fatalf("faces %+v; want Ines once, renamed by the second import, nothing of the refused one", faces)
	}
	blobs, err := blob.NewDisk(filepath.Join(cfg.DataDir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	if _, err := blobs.Stat(context.Background(), faces[0].Images[0].Key); err != nil {
		t.Errorf("the face's image is not stored: %v", err)
	}
}
