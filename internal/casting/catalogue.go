package casting

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"studio/internal/asset"
	"studio/internal/ts"
)

// ManifestName is the catalogue manifest's file name in an import folder.
const ManifestName = "manifest.json"

// Manifest is what an operator writes beside the images of the faces to
// load (`studio models import DIR`; docs/casting.md, "Loading the
// catalogue of faces"):
//
//	{"faces": [{"key": "ines", "name": "Inès", "tier": "sale",
//	  "priceCents": 4900, "currency": "usd",
//	  "images": ["ines/cover.jpg", "ines/side.jpg"],
//	  "traits": {"height": "178 cm", "marks": ["freckles"]}}]}
//
// key names the face across imports (lowercase letters, digits and
// hyphens, at most 64): importing a key again replaces its name, tier,
// price, images and traits and keeps its id. tier is free, sale or
// exclusive; a free face costs 0 and the others at least 1 cent; currency
// is three lowercase letters (default usd); images are 1 to 12 paths inside
// the folder, the cover first, each a JPEG, PNG or WebP of at most 12 MB.
// Unknown fields are refused, so a misspelt one is not silently dropped.
type Manifest struct {
	Faces []ManifestFace `json:"faces"`
}

// ManifestFace is one face of a manifest.
type ManifestFace struct {
	Key        string   `json:"key"`
	Name       string   `json:"name"`
	Tier       Tier     `json:"tier"`
	PriceCents int64    `json:"priceCents"`
	Currency   string   `json:"currency"`
	Images     []string `json:"images"`
	Traits     Traits   `json:"traits"`
}

var (
	keyPattern      = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	currencyPattern = regexp.MustCompile(`^[a-z]{3}$`)
)

// ParseManifest reads and checks a manifest; the error names the face and
// the field at fault.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Manifest{}, fmt.Errorf("manifest: more than one JSON value")
	}
	if len(m.Faces) == 0 {
		return Manifest{}, fmt.Errorf("manifest: no faces")
	}
	seen := map[string]bool{}
	for i := range m.Faces {
		f := &m.Faces[i]
		if err := f.check(); err != nil {
			return Manifest{}, fmt.Errorf("manifest: face %d (%q): %w", i+1, f.Key, err)
		}
		if seen[f.Key] {
			return Manifest{}, fmt.Errorf("manifest: face %d: key %q is named twice", i+1, f.Key)
		}
		seen[f.Key] = true
	}
	return m, nil
}

// check cleans one face of a manifest and refuses what the board cannot show.
func (f *ManifestFace) check() error {
	if !keyPattern.MatchString(f.Key) {
		return fmt.Errorf("key must be lowercase letters, digits and hyphens, at most 64")
	}
	name, err := cleanName(f.Name)
	if err != nil {
		return fmt.Errorf("name must be 1 to %d characters", MaxName)
	}
	f.Name = name
	switch f.Tier {
	case Free:
		if f.PriceCents != 0 {
			return fmt.Errorf("a free face has priceCents 0")
		}
	case Sale, Exclusive:
		if f.PriceCents < 1 {
			return fmt.Errorf("a %s face has priceCents of at least 1", f.Tier)
		}
	default:
		return fmt.Errorf("tier must be free, sale or exclusive")
	}
	if f.Currency == "" {
		f.Currency = OwnCurrency
	}
	if !currencyPattern.MatchString(f.Currency) {
		return fmt.Errorf("currency must be three lowercase letters")
	}
	if len(f.Images) == 0 || len(f.Images) > MaxAssets {
		return fmt.Errorf("images must name 1 to %d files", MaxAssets)
	}
	for _, p := range f.Images {
		if !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`) {
			return fmt.Errorf("image %q is not a path inside the folder", p)
		}
	}
	f.Traits = f.Traits.clean()
	return f.Traits.Validate()
}

// ImageKey is where a catalogue image is kept: named by its bytes, so an
// import repeated stores nothing twice.
func ImageKey(sum string) string { return "casting/" + sum }

// Import loads the catalogue faces a folder's manifest describes: every
// face and image is checked before anything is written, the images are
// stored, then the faces are written in one transaction (all or none). It
// returns how many faces it wrote.
func (s *Service) Import(ctx context.Context, dir fs.FS) (int, error) {
	data, err := fs.ReadFile(dir, ManifestName)
	if err != nil {
		return 0, err
	}
	m, err := ParseManifest(data)
	if err != nil {
		return 0, err
	}
	type pending struct {
		key  string
		data []byte
	}
	var puts []pending
	faces := make([]Face, 0, len(m.Faces))
	now := ts.Of(s.now())
	for _, mf := range m.Faces {
		f := Face{Key: mf.Key, Name: mf.Name, Tier: mf.Tier, PriceCents: mf.PriceCents, Currency: mf.Currency, Traits: mf.Traits, CreatedAt: now}
		for _, p := range mf.Images {
			b, err := fs.ReadFile(dir, p)
			if err != nil {
				return 0, fmt.Errorf("face %q: %w", mf.Key, err)
			}
			info, err := asset.Inspect(b)
			if err != nil {
				return 0, fmt.Errorf("face %q: image %s: %w", mf.Key, p, err)
			}
			sum := sha256.Sum256(b)
			h := hex.EncodeToString(sum[:])
			f.Images = append(f.Images, FaceImage{Key: ImageKey(h), Mime: info.Mime, Size: int64(len(b)), Sum: h})
			puts = append(puts, pending{ImageKey(h), b})
		}
		faces = append(faces, f)
	}
	for _, p := range puts {
		if _, err := s.blobs.Put(ctx, p.key, bytes.NewReader(p.data)); err != nil {
			return 0, err
		}
	}
	if err := s.store.UpsertFaces(ctx, faces); err != nil {
		return 0, err
	}
	return len(faces), nil
}
