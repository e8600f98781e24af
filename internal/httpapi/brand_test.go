package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/ledger"
)

// brandWalk is the brand area's part of the route walk (walk_test.go).
var brandWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/brand":   static("/api/toolkit/brand", nil),
		"PATCH /api/toolkit/brand": static("/api/toolkit/brand", map[string]any{"vibe": []string{"calm"}}),
		// Without an AI endpoint in the walk, a read without images: 400
		// NO_IMAGES for those who may read, 403 for a viewer.
		"POST /api/toolkit/brand/dna": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/brand/dna", apptest.Multipart(t, apptest.Part{Name: "products", Value: "linen shirts"})}
		},
		"GET /api/toolkit/brand/marks": static("/api/toolkit/brand/marks", nil),
		"POST /api/toolkit/brand/marks": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/brand/marks", map[string]any{"assetId": markAsset(t, a, u.Session()), "material": "gold foil"}}
		},
		"PATCH /api/toolkit/brand/marks/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/brand/marks/" + markID(t, a, u.Session(), ""), map[string]any{"placement": "left chest"}}
		},
		"DELETE /api/toolkit/brand/marks/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/brand/marks/" + markID(t, a, u.Session(), ""), nil}
		},
	},
	minRole: map[string]auth.Role{
		"PATCH /api/toolkit/brand":             auth.Member,
		"POST /api/toolkit/brand/dna":          auth.Member,
		"POST /api/toolkit/brand/marks":        auth.Member,
		"PATCH /api/toolkit/brand/marks/{id}":  auth.Member,
		"DELETE /api/toolkit/brand/marks/{id}": auth.Member,
	},
}

// markAsset uploads a logo rendition (kind mark) and returns its id.
func markAsset(t testing.TB, a *apptest.App, c apptest.Cred, fields ...string) string {
	t.Helper()
	return upload(t, a, c, pngOf(t, 40, 20), append([]string{"kind", "mark", "name", "Wordmark"}, fields...)...).ID
}

// markID registers a fresh mark asset at the level (collection "" is the
// house set) and returns the mark's id.
func markID(t testing.TB, a *apptest.App, c apptest.Cred, collection string) string {
	t.Helper()
	body := map[string]any{"assetId": markAsset(t, a, c), "material": "gold foil wordmark"}
	if collection != "" {
		body["collectionId"] = collection
	}
	res := a.Do(t, "POST", "/api/toolkit/brand/marks", c, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("register mark: %d %s", res.Status, res.Body)
	}
	return res.Map(t)["mark"].(map[string]any)["id"].(string)
}

// wireProfile is the brand profile as tests read it.
type wireProfile struct {
	VisionEn          string   `json:"visionEn"`
	Vibe              []string `json:"vibe"`
	Palette           []string `json:"palette"`
	SignatureKeywords []struct {
		Category string `json:"category"`
		Phrase   string `json:"phrase"`
	} `json:"signatureKeywords"`
	InjectEnabled bool   `json:"injectEnabled"`
	DNARuns       int64  `json:"dnaRuns"`
	Clause        string `json:"clause"`
}

func profileOf(t testing.TB, res apptest.Resp) wireProfile {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("profile: %d %s", res.Status, res.Body)
	}
	var body struct {
		OK      bool
		Profile wireProfile
		Charged *int64
	}
	res.JSON(t, &body)
	if !body.OK {
		t.Errorf("ok is false: %s", res.Body)
	}
	return body.Profile
}

func TestBrandProfile(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "maison"), a.SignUp(t, "other")
		viewer := a.Key(t, owner, "viewer")

		// Never a 404: a house without a profile reads empty defaults.
		res := a.Do(t, "GET", "/api/toolkit/brand", viewer, nil)
		if got := string(res.Body); !strings.Contains(got, `"vibe":[]`) || !strings.Contains(got, `"palette":[]`) ||
			!strings.Contains(got, `"signatureKeywords":[]`) || !strings.Contains(got, `"clause":""`) {
			t.Errorf("empty profile %s", got)
		}
		if p := profileOf(t, res); p.InjectEnabled || p.DNARuns != 0 || p.VisionEn != "" {
			t.Errorf("defaults %+v", p)
		}

		// Merged, then clamped; dnaRuns is not the client's to write.
		vibe := []string{" Calm ", "calm", "coastal", strings.Repeat("x", 60)}
		for i := range 20 {
			vibe = append(vibe, fmt.Sprintf("mood %d", i))
		}
		p := profileOf(t, a.Do(t, "PATCH", "/api/toolkit/brand", owner.Session(), map[string]any{
			"visionEn": "Quiet tailoring\n by the sea", "vibe": vibe, "palette": []string{"#1F2A44", "navy", "#abc"},
			"signatureKeywords": []map[string]string{{"category": "material", "phrase": "washed linen"}, {"category": "", "phrase": "x"}},
			"dnaRuns":           7,
		}))
		if p.VisionEn != "Quiet tailoring by the sea" || len(p.Vibe) != 12 || p.Vibe[0] != "Calm" || len(p.Vibe[2]) != 40 ||
			!slices.Equal(p.Palette, []string{"#1f2a44", "#aabbcc"}) || len(p.SignatureKeywords) != 1 || p.DNARuns != 0 || p.Clause != "" {
			t.Errorf("patched %+v", p)
		}
		// Another patch merges: only injectEnabled changes, and the clause appears.
		p = profileOf(t, a.Do(t, "PATCH", "/api/toolkit/brand", owner.Session(), map[string]any{"injectEnabled": true}))
		wantClause := "House style: Quiet tailoring by the sea. Mood: " + strings.Join(p.Vibe, ", ") +
			". Palette: #1f2a44, #aabbcc. Signature details: material: washed linen."
		if p.VisionEn == "" || p.Clause != wantClause {
			t.Errorf("clause %q; want %q", p.Clause, wantClause)
		}
		if got := profileOf(t, a.Do(t, "GET", "/api/toolkit/brand", viewer, nil)); got.Clause != wantClause {
			t.Errorf("read back %q", got.Clause)
		}
		// Cleared fields leave the clause.
		p = profileOf(t, a.Do(t, "PATCH", "/api/toolkit/brand", owner.Session(), map[string]any{"vibe": []string{}, "palette": nil}))
		if len(p.Vibe) != 0 || len(p.Palette) != 2 || strings.Contains(p.Clause, "Mood") {
			t.Errorf("after clearing vibe: %+v", p)
		}
		p = profileOf(t, a.Do(t, "PATCH", "/api/toolkit/brand", owner.Session(), map[string]any{"injectEnabled": false}))
		if p.Clause != "" {
			t.Errorf("clause %q with injection off", p.Clause)
		}

		want(t, a.Do(t, "PATCH", "/api/toolkit/brand", viewer, map[string]any{"injectEnabled": true}), 403, "FORBIDDEN")
		want(t, a.Do(t, "PATCH", "/api/toolkit/brand", owner.Session(), `{"vibe": "calm"}`), 400, "BAD_BODY")
		if got := profileOf(t, a.Do(t, "GET", "/api/toolkit/brand", other.Session(), nil)); got.VisionEn != "" {
			t.Errorf("another house reads %+v", got)
		}
	})
}

// bandsJPEG is a photograph of horizontal bands of the colours, each
// taking its share (in tenths) of the height.
func bandsJPEG(t testing.TB, w, h int, bands ...any) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	y := 0
	for i := 0; i+1 < len(bands); i += 2 {
		c, tenths := bands[i].(color.RGBA), bands[i+1].(int)
		end := min(h, y+h*tenths/10)
		if i+2 >= len(bands) {
			end = h
		}
		for ; y < end; y++ {
			for x := range w {
				img.Set(x, y, c)
			}
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	navy  = color.RGBA{0x1f, 0x2a, 0x44, 0xff}
	cream = color.RGBA{0xe8, 0xdc, 0xc8, 0xff}
	rust  = color.RGBA{0xb5, 0x4a, 0x2a, 0xff}
)

var photos struct {
	sync.Once
	jpegs [][]byte
}

// fivePhotos are a house's photographs: navy and cream, with rust in two.
// They are made once.
func fivePhotos(t testing.TB) [][]byte {
	photos.Do(func() {
		photos.jpegs = [][]byte{
			bandsJPEG(t, 320, 400, navy, 7, cream, 3),
			bandsJPEG(t, 400, 300, cream, 6, navy, 4),
			bandsJPEG(t, 300, 300, navy, 5, rust, 2, cream, 3),
			bandsJPEG(t, 200, 260, cream, 8, rust, 2),
			bandsJPEG(t, 240, 320, navy, 10),
		}
	})
	return slices.Clone(photos.jpegs)
}

// dnaForm is a DNA read's form: the photographs and the text fields.
func dnaForm(t testing.TB, photos [][]byte, fields ...string) apptest.Form {
	t.Helper()
	var parts []apptest.Part
	for i, p := range photos {
		parts = append(parts, apptest.Part{Name: "image", Filename: fmt.Sprintf("look-%d.jpg", i+1), Data: p})
	}
	for i := 0; i+1 < len(fields); i += 2 {
		parts = append(parts, apptest.Part{Name: fields[i], Value: fields[i+1]})
	}
	return apptest.Multipart(t, parts...)
}

// aReading is the stand-in endpoint's answer to a DNA read.
func aReading(vision string) aitest.Answer {
	return aitest.JSON(map[string]any{
		"visionEn": vision,
		"vibe":     []string{"calm", "coastal", "understated"},
		"signatureKeywords": []map[string]string{
			{"category": "material", "phrase": "washed linen"}, {"category": "silhouette", "phrase": "wide-leg trousers"},
		},
	})
}

// withAI configures the app's AI endpoint to the stand-in.
func withAI(srv *aitest.Server) func(*app.Config) {
	return func(c *app.Config) { c.AIBaseURL, c.AIModel = srv.URL, "vision-test" }
}

type dnaAnswer struct {
	OK      bool        `json:"ok"`
	Profile wireProfile `json:"profile"`
	Charged int64       `json:"charged"`
}

func readDNA(t testing.TB, a *apptest.App, c apptest.Cred, form apptest.Form) dnaAnswer {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/brand/dna", c, form)
	if res.Status != http.StatusOK {
		t.Fatalf("dna read: %d %s", res.Status, res.Body)
	}
	var body dnaAnswer
	res.JSON(t, &body)
	return body
}

// TestBrandDNA: five photographs read free, again for 2 tokens; the
// palette is the photographs' colours; a failing provider charges nothing;
// every refusal holds nothing.
func TestBrandDNA(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		a := apptest.New(t, e, withAI(srv))
		owner := a.SignUp(t, "atelier")
		k := a.Key(t, owner, "member")
		start := houseBalance(t, a, owner.HouseID)

		// A first read that fails leaves the free read for the next.
		srv.Answer(aitest.Fail(400, "invalid_request_error", "", "The model is unavailable."))
		want(t, a.Do(t, "POST", "/api/toolkit/brand/dna", k, dnaForm(t, fivePhotos(t))), 502, "AI_FAILED")

		srv.Answer(aReading("Quiet coastal tailoring in soft light."))
		first := readDNA(t, a, k, dnaForm(t, fivePhotos(t), "vibe", `["salt air", "calm"]`, "products", "linen shirts and knitwear"))
		if first.Charged != 0 || first.Profile.DNARuns != 1 || first.Profile.VisionEn != "Quiet coastal tailoring in soft light." {
			t.Errorf("first read %+v", first)
		}
		if !slices.Equal(first.Profile.Vibe, []string{"salt air", "calm", "coastal", "understated"}) || len(first.Profile.SignatureKeywords) != 2 {
			t.Errorf("read %+v", first.Profile)
		}
		checkPalette(t, first.Profile.Palette, navy, cream, rust)
		if b := houseBalance(t, a, owner.HouseID); b.Balance != start.Balance || b.Held != 0 {
			t.Errorf("the first read cost %d (held %d)", start.Balance-b.Balance, b.Held)
		}
		chats := srv.Chats()
		req := chats[len(chats)-1]
		if req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil || req.ResponseFormat.JSONSchema.Name != "brand_dna" {
			t.Fatalf("the read did not ask for the brand_dna schema")
		}
		user := req.Messages[len(req.Messages)-1]
		if n := len(user.Images()); n != 5 {
			t.Errorf("the model saw %d photographs", n)
		}
		if text := user.Text(); !strings.Contains(text, "linen shirts and knitwear") || !strings.Contains(text, "salt air") ||
			!strings.Contains(text, first.Profile.Palette[0]) {
			t.Errorf("the question %q lacks the hints or the measured palette", text)
		}

		// Again: 2 tokens, posted.
		srv.Answer(aReading("Coastal tailoring, read again."))
		again := readDNA(t, a, k, dnaForm(t, fivePhotos(t)[:2]))
		if again.Charged != 2 || again.Profile.DNARuns != 2 || again.Profile.VisionEn != "Coastal tailoring, read again." {
			t.Errorf("re-read %+v", again)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != start.Balance-2 || b.Held != 0 {
			t.Errorf("after the re-read: balance %d held %d; want %d and 0", b.Balance, b.Held, start.Balance-2)
		}
		// The read kept injectEnabled, and the clause follows the read.
		p := profileOf(t, a.Do(t, "PATCH", "/api/toolkit/brand", k, map[string]any{"injectEnabled": true}))
		if !strings.HasPrefix(p.Clause, "House style: Coastal tailoring, read again. Mood: calm, coastal") {
			t.Errorf("clause %q", p.Clause)
		}

		// Failing re-reads hold 2 before the call and void them.
		after := houseBalance(t, a, owner.HouseID)
		for _, tc := range []struct {
			answers []aitest.Answer
			status  int
			code    string
		}{
			{[]aitest.Answer{aitest.Fail(400, "invalid_request_error", "", "Bad image.")}, 502, "AI_FAILED"},
			{[]aitest.Answer{{Err: aitest.OutOfCredit()}}, 402, "AI_NEEDS_BILLING"},
			{[]aitest.Answer{{Content: `{"vibe": []}`}, {Content: `no JSON at all`}}, 502, "AI_BAD_OUTPUT"},
			{[]aitest.Answer{aReading(" \t")}, 502, "AI_BAD_OUTPUT"}, // in the schema, but says nothing
		} {
			srv.Answer(tc.answers...)
			want(t, a.Do(t, "POST", "/api/toolkit/brand/dna", k, dnaForm(t, fivePhotos(t)[:1])), tc.status, tc.code)
			if b := houseBalance(t, a, owner.HouseID); b.Balance != after.Balance || b.Held != 0 {
				t.Errorf("%s: balance %d held %d; want %d and 0", tc.code, b.Balance, b.Held, after.Balance)
			}
		}
		if n := srv.Pending(); n != 0 {
			t.Errorf("%d scripted answers were not asked for", n)
		}
		if p := profileOf(t, a.Do(t, "GET", "/api/toolkit/brand", k, nil)); p.DNARuns != 2 {
			t.Errorf("failed reads counted: %d runs", p.DNARuns)
		}

		// Refusals before the call: nothing asked, nothing held.
		asked := len(srv.Chats())
		viewer := a.Key(t, owner, "viewer")
		huge := make([]byte, 13<<20)
		copy(huge, fivePhotos(t)[0])
		tooMany := slices.Repeat(fivePhotos(t)[:1], 11)
		gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			form   apptest.Form
			status int
			code   string
		}{
			{"viewer", viewer, dnaForm(t, fivePhotos(t)), 403, "FORBIDDEN"},
			{"no images", k, dnaForm(t, nil, "vibe", `["calm"]`), 400, "NO_IMAGES"},
			{"eleven images", k, dnaForm(t, tooMany), 400, "BAD_FORM"},
			{"a gif", k, dnaForm(t, [][]byte{gif}), 400, "BAD_FORM"},
			{"vibe not an array", k, dnaForm(t, fivePhotos(t)[:1], "vibe", "calm"), 400, "BAD_FORM"},
			{"an image over 12 MB", k, dnaForm(t, [][]byte{huge}), 413, "IMAGE_TOO_LARGE"},
			{"a set over 32 MB", k, dnaForm(t, [][]byte{huge[:11<<20], huge[:11<<20], huge[:11<<20]}), 413, "SET_TOO_LARGE"},
			{"a set over 32 MB in a small body", k, dnaForm(t, [][]byte{huge[:10<<20+700<<10], huge[:10<<20+700<<10], huge[:10<<20+700<<10]}), 413, "SET_TOO_LARGE"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/brand/dna", tc.cred, tc.form), tc.status, tc.code)
			})
		}
		if len(srv.Chats()) != asked {
			t.Error("a refused read asked the model")
		}

		// A house that cannot cover a re-read: 402 with need, spendable
		// and held, nothing asked.
		short := a.SignUp(t, "short")
		srv.Answer(aReading("A first read."))
		readDNA(t, a, short.Session(), dnaForm(t, fivePhotos(t)[:1]))
		b := houseBalance(t, a, short.HouseID)
		if err := a.DB.TakeHold(context.Background(), short.HouseID, ledger.NewHold("", b.Balance-1)); err != nil {
			t.Fatal(err)
		}
		res := a.Do(t, "POST", "/api/toolkit/brand/dna", short.Session(), dnaForm(t, fivePhotos(t)[:1]))
		want(t, res, 402, "INSUFFICIENT_TOKENS")
		if m := res.Map(t); m["need"] != float64(2) || m["spendable"] != float64(1) || m["held"] != float64(b.Balance-1) {
			t.Errorf("402 body %s", res.Body)
		}
		if got := houseBalance(t, a, short.HouseID); got.Held != b.Balance-1 {
			t.Errorf("the refused read held %d", got.Held-(b.Balance-1))
		}
	})
}

// checkPalette finds each colour in the measured palette within a few ΔE
// (JPEG moves colours a little).
func checkPalette(t *testing.T, palette []string, colours ...color.RGBA) {
	t.Helper()
	if len(palette) != len(colours) {
		t.Errorf("palette %q; want %d colours", palette, len(colours))
		return
	}
	for _, c := range colours {
		found := false
		for _, h := range palette {
			var r, g, b uint8
			if _, err := fmt.Sscanf(h, "#%02x%02x%02x", &r, &g, &b); err != nil {
				t.Fatalf("palette entry %q: %v", h, err)
			}
			if d := max(absDiff(r, c.R), absDiff(g, c.G), absDiff(b, c.B)); d <= 8 {
				found = true
			}
		}
		if !found {
			t.Errorf("palette %q lacks %02x%02x%02x", palette, c.R, c.G, c.B)
		}
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestBrandDNAUnconfigured: without an AI endpoint a read is 503 and holds nothing.
func TestBrandDNAUnconfigured(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "plain")
		before := houseBalance(t, a, owner.HouseID)
		want(t, a.Do(t, "POST", "/api/toolkit/brand/dna", owner.Session(), dnaForm(t, fivePhotos(t)[:2])), 503, "AI_NOT_CONFIGURED")
		if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance || b.Held != before.Held {
			t.Errorf("balance %+v; want %+v", b, before)
		}
		if p := profileOf(t, a.Do(t, "GET", "/api/toolkit/brand", owner.Session(), nil)); p.DNARuns != 0 {
			t.Errorf("runs %d", p.DNARuns)
		}
	})
}

// TestBrandDNAFirstReadRace: two first reads in flight together; one is
// free, the other is charged as a re-read.
func TestBrandDNAFirstReadRace(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		a := apptest.New(t, e, withAI(srv))
		owner := a.SignUp(t, "racer")
		start := houseBalance(t, a, owner.HouseID)
		srv.Answer(aReading("One."), aReading("Two."))
		var wg sync.WaitGroup
		charged := make([]int64, 2)
		for i := range 2 {
			wg.Go(func() { charged[i] = readDNA(t, a, owner.Session(), dnaForm(t, fivePhotos(t)[:1])).Charged })
		}
		wg.Wait()
		slices.Sort(charged)
		if !slices.Equal(charged, []int64{0, 2}) {
			t.Errorf("charged %v; want one free read and one at 2", charged)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != start.Balance-2 || b.Held != 0 {
			t.Errorf("balance %d held %d", b.Balance, b.Held)
		}
		if p := profileOf(t, a.Do(t, "GET", "/api/toolkit/brand", owner.Session(), nil)); p.DNARuns != 2 {
			t.Errorf("runs %d", p.DNARuns)
		}
	})
}

// wireBrandMark is a mark as tests read it.
type wireBrandMark struct {
	ID           string  `json:"id"`
	AssetID      string  `json:"assetId"`
	CollectionID *string `json:"collectionId"`
	Material     string  `json:"material"`
	Placement    *string `json:"placement"`
	Note         *string `json:"note"`
	SortOrder    int     `json:"sortOrder"`
	Filename     string  `json:"filename"`
}

type wireBrandMarks struct {
	House, Collection []wireBrandMark
	Riding            string
}

func marksOf(t testing.TB, a *apptest.App, c apptest.Cred, query string) wireBrandMarks {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/brand/marks"+query, c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("marks: %d %s", res.Status, res.Body)
	}
	var m wireBrandMarks
	res.JSON(t, &m)
	return m
}

func ids(ms []wireBrandMark) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestBrandMarks(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "marks"), a.SignUp(t, "elsewhere")
		s := owner.Session()
		viewer := a.Key(t, owner, "viewer")
		coll := folderID(t, a, owner)
		post := func(c apptest.Cred, body map[string]any) apptest.Resp {
			return a.Do(t, "POST", "/api/toolkit/brand/marks", c, body)
		}
		markOf := func(res apptest.Resp) wireBrandMark {
			t.Helper()
			var b struct{ Mark wireBrandMark }
			res.JSON(t, &b)
			return b.Mark
		}

		logo := markAsset(t, a, s)
		res := post(s, map[string]any{"assetId": logo, "material": " embroidered gold wordmark ", "placement": "left chest", "note": ""})
		want(t, res, 201, "")
		first := markOf(res)
		if first.Material != "embroidered gold wordmark" || first.CollectionID != nil || first.Note != nil ||
			first.Placement == nil || *first.Placement != "left chest" || first.Filename != "Wordmark" || first.SortOrder != 0 {
			t.Errorf("registered %+v", first)
		}
		want(t, post(s, map[string]any{"assetId": logo, "material": "again"}), 409, "ALREADY_REGISTERED")
		// The same asset at a collection's level is another registration.
		res = post(s, map[string]any{"assetId": logo, "material": "tonal patch", "collectionId": coll})
		want(t, res, 201, "")
		override := markOf(res)
		want(t, post(s, map[string]any{"assetId": logo, "material": "tonal patch", "collectionId": coll}), 409, "ALREADY_REGISTERED")

		second := markOf(post(s, map[string]any{"assetId": markAsset(t, a, s), "material": "blind emboss"}))
		third := markOf(post(s, map[string]any{"assetId": markAsset(t, a, s), "material": "woven label", "sortOrder": 0}))
		if second.SortOrder != 1 || third.SortOrder != 0 {
			t.Errorf("sort orders %d, %d", second.SortOrder, third.SortOrder)
		}

		garment := upload(t, a, s, jpegOf(t, 16, 12), "kind", "clothes").ID
		foreign := markAsset(t, a, other.Session())
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			body   map[string]any
			status int
			code   string
		}{
			{"no asset", s, map[string]any{"material": "x"}, 400, "ASSET_REQUIRED"},
			{"blank asset", s, map[string]any{"assetId": " ", "material": "x"}, 400, "ASSET_REQUIRED"},
			{"no material", s, map[string]any{"assetId": markAsset(t, a, s)}, 400, "BAD_MATERIAL"},
			{"blank material", s, map[string]any{"assetId": markAsset(t, a, s), "material": "  "}, 400, "BAD_MATERIAL"},
			{"material too long", s, map[string]any{"assetId": markAsset(t, a, s), "material": strings.Repeat("m", 301)}, 400, "BAD_MATERIAL"},
			{"sort order out of range", s, map[string]any{"assetId": markAsset(t, a, s), "material": "x", "sortOrder": 10000}, 400, "BAD_BODY"},
			{"not a mark", s, map[string]any{"assetId": garment, "material": "x"}, 400, "NOT_A_MARK"},
			{"foreign asset", s, map[string]any{"assetId": foreign, "material": "x"}, 404, "ASSET_NOT_FOUND"},
			{"unknown asset", s, map[string]any{"assetId": "0190a8f0-0000-7000-8000-000000000000", "material": "x"}, 404, "ASSET_NOT_FOUND"},
			{"foreign collection", s, map[string]any{"assetId": markAsset(t, a, s), "material": "x", "collectionId": folderID(t, a, other)}, 404, "NOT_FOUND"},
			{"viewer", viewer, map[string]any{"assetId": markAsset(t, a, s), "material": "x"}, 403, "role_cannot_edit_marks"},
		} {
			t.Run(tc.name, func(t *testing.T) { want(t, post(tc.cred, tc.body), tc.status, tc.code) })
		}

		// The list: the house set in sortOrder, then oldest; the override apart.
		m := marksOf(t, a, viewer, "")
		if !slices.Equal(ids(m.House), []string{first.ID, third.ID, second.ID}) || len(m.Collection) != 0 || m.Riding != "house" {
			t.Errorf("house list %+v", m)
		}
		m = marksOf(t, a, viewer, "?collectionId="+coll)
		if !slices.Equal(ids(m.Collection), []string{override.ID}) || len(m.House) != 3 || m.Riding != "collection" {
			t.Errorf("collection list %+v", m)
		}
		if m := marksOf(t, a, viewer, "?collectionId="+folderID(t, a, owner)); m.Riding != "house" || len(m.Collection) != 0 {
			t.Errorf("a collection without marks: %+v", m)
		}
		want(t, a.Do(t, "GET", "/api/toolkit/brand/marks?collectionId="+folderID(t, a, other), s, nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", "/api/toolkit/brand/marks?collectionId=nope%01", s, nil), 404, "NOT_FOUND")
		if m := marksOf(t, a, other.Session(), ""); len(m.House) != 0 {
			t.Errorf("another house lists %+v", m.House)
		}

		// Patch: placement and note nullable, material never cleared.
		path := "/api/toolkit/brand/marks/" + first.ID
		res = a.Do(t, "PATCH", path, s, map[string]any{"placement": nil, "note": "from the 2019 rebrand", "sortOrder": 5})
		want(t, res, 200, "")
		if got := markOf(res); got.Placement != nil || got.Note == nil || *got.Note != "from the 2019 rebrand" || got.SortOrder != 5 ||
			got.Material != "embroidered gold wordmark" {
			t.Errorf("patched %+v", got)
		}
		if got := markOf(a.Do(t, "PATCH", path, s, map[string]any{})); got.SortOrder != 5 {
			t.Errorf("empty patch %+v", got)
		}
		want(t, a.Do(t, "PATCH", path, s, map[string]any{"material": nil}), 400, "BAD_MATERIAL")
		want(t, a.Do(t, "PATCH", path, s, map[string]any{"material": ""}), 400, "BAD_MATERIAL")
		want(t, a.Do(t, "PATCH", path, s, map[string]any{"sortOrder": nil}), 400, "BAD_BODY")
		want(t, a.Do(t, "PATCH", path, s, map[string]any{"note": strings.Repeat("n", 601)}), 400, "BAD_BODY")
		want(t, a.Do(t, "PATCH", path, viewer, map[string]any{"note": "x"}), 403, "role_cannot_edit_marks")
		if got := markOf(a.Do(t, "PATCH", path, s, map[string]any{"material": "gold thread"})); got.Material != "gold thread" {
			t.Errorf("material %q", got.Material)
		}

		// Delete: the asset survives; a viewer may not.
		want(t, a.Do(t, "DELETE", path, viewer, nil), 403, "role_cannot_edit_marks")
		res = a.Do(t, "DELETE", path, s, nil)
		if res.Status != 200 || string(res.Body) != fmt.Sprintf(`{"ok":true,"id":"%s"}`+"\n", first.ID) {
			t.Errorf("delete: %d %s", res.Status, res.Body)
		}
		want(t, a.Do(t, "DELETE", path, s, nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "PATCH", path, s, map[string]any{"note": "x"}), 404, "NOT_FOUND")
		if r := a.Do(t, "GET", "/api/toolkit/assets/"+logo+"/file", s, nil); r.Status != 200 {
			t.Errorf("the deleted mark's asset: %d", r.Status)
		}
		// A mark whose asset is deleted is no longer listed.
		if r := a.Do(t, "POST", "/api/toolkit/assets/batch/delete", s, map[string]any{"assetIds": []string{logo}}); r.Status != 200 {
			t.Fatalf("delete asset: %d %s", r.Status, r.Body)
		}
		if m := marksOf(t, a, s, "?collectionId="+coll); len(m.Collection) != 0 || m.Riding != "house" ||
			!slices.Equal(ids(m.House), []string{third.ID, second.ID}) {
			t.Errorf("after the asset's deletion: %+v", m)
		}
	})
}
