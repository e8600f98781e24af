package sweep_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"image"
	"image/png"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/blob"
	"studio/internal/blob/s3"
	"studio/internal/pack"
	"studio/internal/sweep"
)

// world is a house with every kind of referenced blob, and the orphans a
// crash leaves beside them.
type world struct {
	referenced []string // keys a row refers to
	orphans    []string // keys no row refers to
	foreign    []string // keys of a shape the sweeper does not know
}

// build makes, through the real service: an uploaded asset, a deleted
// asset, the input of a queued job, a built pack; then plants orphaned
// asset bytes and a pack archive without a row, and an unknown key.
func build(t *testing.T, a *apptest.App) world {
	t.Helper()
	ctx := context.Background()
	owner := a.SignUp(t, "sweep")
	k := a.Key(t, owner, "member")
	var w world
	upload := func() string {
		res := a.Do(t, "POST", "/api/toolkit/assets/upload", k, apptest.Multipart(t,
			apptest.Part{Name: "file", Filename: "a.png", Data: tinyPNG}))
		if res.Status != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.Status, res.Body)
		}
		id := res.Map(t)["asset"].(map[string]any)["id"].(string)
		w.referenced = append(w.referenced, asset.BlobKey(owner.HouseID, id))
		return id
	}
	kept := upload()
	gone := upload()
	if res := a.Do(t, "POST", "/api/toolkit/assets/batch/delete", k, map[string]any{"assetIds": []string{gone}}); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	// A queued job's input (never developed here).
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, apptest.Multipart(t,
		apptest.Part{Name: "tool", Value: "upscale"}, apptest.Part{Name: "image", Filename: "in.png", Data: otherPNG}))
	if res.Status != http.StatusAccepted {
		t.Fatalf("submit: %d %s", res.Status, res.Body)
	}
	j, err := a.DB.Job(ctx, owner.HouseID, res.Map(t)["jobId"].(string))
	if err != nil || len(j.Inputs) != 1 || j.Status != "queued" {
		t.Fatalf("job %+v, %v", j, err)
	}
	w.referenced = append(w.referenced, asset.BlobKey(owner.HouseID, j.Inputs[0].AssetID))
	// A queued pack, built into the store.
	a.Packs.SetLimits(pack.Limits{InstantFrames: 1})
	res = a.Do(t, "POST", "/api/toolkit/assets/pack", k, map[string]any{"assetIds": []string{kept}})
	if res.Status != http.StatusAccepted && res.Status != http.StatusOK {
		t.Fatalf("pack: %d %s", res.Status, res.Body)
	}
	packID := res.Map(t)["packId"].(string)
	if built, err := a.Packs.One(ctx); err != nil || !built {
		t.Fatalf("build pack: %v, %v", built, err)
	}
	w.referenced = append(w.referenced, pack.BlobKey(owner.HouseID, packID))

	plant := func(key string) {
		if _, err := a.Blobs.Put(ctx, key, bytes.NewReader(tinyPNG)); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		w.orphans = append(w.orphans, asset.BlobKey(owner.HouseID, uuid.Must(uuid.NewV7()).String()))
	}
	w.orphans = append(w.orphans, pack.BlobKey(owner.HouseID, uuid.Must(uuid.NewV7()).String()))
	// The right id in another house's folder is not that house's asset.
	w.orphans = append(w.orphans, asset.BlobKey(uuid.Must(uuid.NewV7()).String(), kept))
	w.foreign = []string{"avatars/" + owner.ID, "assets/" + owner.HouseID + "/sub/" + kept, "packs/" + owner.HouseID + "/" + packID}
	for _, key := range slices.Concat(w.orphans, w.foreign) {
		plant(key)
	}
	return w
}

var tinyPNG, otherPNG = grayPNG(4), grayPNG(5)

// grayPNG encodes a blank n×n picture. The job's input differs from the
// uploads so that a submit does not reuse an uploaded asset with the same bytes.
func grayPNG(n int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, n, n))); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func exists(t *testing.T, s blob.Store, key string) bool {
	t.Helper()
	_, err := s.Stat(context.Background(), key)
	if err != nil && !errors.Is(err, blob.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// TestSweep: a sweep within the grace period removes nothing; past it,
// it removes exactly the orphans and the stale temporary files, never a
// referenced blob, nor a key of a shape it does not know.
func TestSweep(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		w := build(t, a)
		temp := filepath.Join(e.DataDir, "blobs", "assets", ".crashed.tmp-abc")
		if err := os.WriteFile(temp, []byte("half"), 0o640); err != nil {
			t.Fatal(err)
		}
		checkSweep(t, a.DB, a.Blobs, w, temp)
	})
}

// TestSweepS3 runs the same sweep over an S3 bucket (when TEST_S3_URL is
// set) holding the same keys as the app's disk store, with a stale spool
// file of an interrupted Put.
func TestSweepS3(t *testing.T) {
	if os.Getenv("TEST_S3_URL") == "" {
		t.Skip("TEST_S3_URL is not set: skipping the sweep over S3 (scripts/test.sh starts versitygw and sets it)")
	}
	a := apptest.New(t, apptest.SQLite(t))
	w := build(t, a)
	store, spool := newS3Store(t)
	ctx := context.Background()
	err := a.Blobs.Walk(ctx, "", func(key string, _ blob.Info) error {
		obj, err := a.Blobs.Open(ctx, key)
		if err != nil {
			return err
		}
		defer obj.Close()
		_, err = store.Put(ctx, key, obj)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(spool, "blob-put-crashed")
	if err := os.WriteFile(temp, []byte("half"), 0o640); err != nil {
		t.Fatal(err)
	}
	checkSweep(t, a.DB, store, w, temp)
}

// checkSweep sweeps store twice: now (nothing may go) and past the grace
// period (exactly the orphans and the temporary file go).
func checkSweep(t *testing.T, db sweep.Store, store blob.Store, w world, temp string) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	r, err := sweep.New(db, store, sweep.Options{Now: func() time.Time { return now }}).Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Blobs != 0 || r.Temps != 0 {
		t.Fatalf("within the grace period: %+v; want nothing removed", r)
	}
	for _, key := range slices.Concat(w.referenced, w.orphans, w.foreign) {
		if !exists(t, store, key) {
			t.Fatalf("%s removed within the grace period", key)
		}
	}

	later := now.Add(sweep.DefaultGrace + time.Minute)
	r, err = sweep.New(db, store, sweep.Options{Now: func() time.Time { return later }}).Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Blobs != len(w.orphans) || r.Temps != 1 || r.Kept != len(w.referenced) {
		t.Errorf("report %+v; want %d orphans, 1 temporary file, %d kept", r, len(w.orphans), len(w.referenced))
	}
	for _, key := range w.orphans {
		if exists(t, store, key) {
			t.Errorf("orphan %s is still there", key)
		}
	}
	for _, key := range slices.Concat(w.referenced, w.foreign) {
		if !exists(t, store, key) {
			t.Errorf("%s was removed", key)
		}
	}
	if _, err := os.Stat(temp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
}

// newS3Store opens an S3 store on a fresh bucket of the TEST_S3_URL server,
// spooling to a folder of its own, and removes the bucket at the end.
func newS3Store(t *testing.T) (blob.Store, string) {
	t.Helper()
	cfg, err := s3.ParseURL(os.Getenv("TEST_S3_URL"))
	if err != nil {
		t.Fatal(err)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(t.Context(), awsconfig.WithRegion(cmp.Or(cfg.Region, "us-east-1")),
		awsconfig.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		awsconfig.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	if err != nil {
		t.Fatal(err)
	}
	client := awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		o.BaseEndpoint = aws.String(cfg.Endpoint)
		o.UsePathStyle = true
	})
	cfg.Bucket = "sweep-" + strings.ToLower(rand.Text())
	if _, err := client.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: &cfg.Bucket}); err != nil {
		t.Fatalf("create bucket %s: %v", cfg.Bucket, err)
	}
	cfg.SpoolDir = t.TempDir()
	store, err := s3.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = store.Walk(ctx, "", func(key string, _ blob.Info) error { return store.Delete(ctx, key) })
		if _, err := client.DeleteBucket(ctx, &awss3.DeleteBucketInput{Bucket: &cfg.Bucket}); err != nil {
			t.Errorf("delete bucket %s: %v", cfg.Bucket, err)
		}
		store.Close()
	})
	return store, cfg.SpoolDir
}

// TestRunSweepsAtStart: the workers' sweeper sweeps once when it starts.
func TestRunSweepsAtStart(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	key := asset.BlobKey(uuid.NewString(), uuid.NewString())
	if _, err := a.Blobs.Put(ctx, key, bytes.NewReader(tinyPNG)); err != nil {
		t.Fatal(err)
	}
	s := sweep.New(a.DB, a.Blobs, sweep.Options{Grace: time.Nanosecond, Every: time.Hour, Log: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return time.Now().Add(time.Second) }})
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for exists(t, a.Blobs, key) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if exists(t, a.Blobs, key) {
		t.Fatal("the first sweep did not run at start")
	}
}
