package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/coder/websocket"

	"studio/internal/blob/s3"
	"studio/internal/dbtest"
)

// TestSeveralInstances runs README's "Running several instances" as
// written: two `studio serve --worker=false` and one `studio worker` on
// one PostgreSQL database and one S3 bucket, each its own process. A
// develop submitted on instance A is claimed and done by the worker, and
// its events reach a socket open on instance B (PostgreSQL LISTEN/NOTIFY);
// B serves the result's bytes from the bucket.
func TestSeveralInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	pg, s3url := os.Getenv("TEST_DATABASE_URL"), os.Getenv("TEST_S3_URL")
	if pg == "" || s3url == "" {
		t.Skip("TEST_DATABASE_URL and TEST_S3_URL are needed (scripts/test.sh starts PostgreSQL and versitygw and sets them)")
	}
	env := []string{"DATABASE_URL=" + dbtest.FreshSchema(t, pg), "BLOB_URL=" + freshBucket(t, s3url)}
	logs := &lockedWriter{w: new(bytes.Buffer)}
	addrA, addrB := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stopping atomic.Bool
	exited := make(chan string, 3) // a process that ended before the test let it
	start := func(addr string, args ...string) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "STUDIO_AS_PROGRAM=1", "STUDIO_DATA_DIR="+t.TempDir(),
			"STUDIO_ADDR="+cmp.Or(addr, freeAddr(t)), "STUDIO_PUBLIC_URL=http://"+cmp.Or(addr, "127.0.0.1:1"), "STUDIO_WORKERS=1")
		cmd.Env = append(cmd.Env, env...)
		cmd.Stdout, cmd.Stderr = logs, logs
		dieWithTest(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			err := cmd.Wait()
			if !stopping.Load() {
				exited <- fmt.Sprintf("%s: %v", strings.Join(args, " "), err)
				cancel()
			}
		}()
		t.Cleanup(func() {
			stopping.Store(true)
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-done
		})
	}
	died := func() string {
		select {
		case e := <-exited:
			return e
		default:
			return ""
		}
	}
	healthy := func(addr string) {
		deadline := time.Now().Add(serveWithin)
		for {
			if e := died(); e != "" {
				t.Fatalf("%s\n%s", e, logs.String())
			}
			if res, err := http.Get("http://" + addr + "/health"); err == nil {
				res.Body.Close()
				if res.StatusCode == 200 {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not serve within %v:\n%s", addr, serveWithin, logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// All three start at once on an empty database, as a deployment would
	// start them: one applies the migrations while the others wait.
	start(addrA, "serve", "--worker=false")
	start(addrB, "serve", "--worker=false")
	start("", "worker")
	healthy(addrA)
	healthy(addrB)

	a, b := "http://"+addrA, "http://"+addrB
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	post := func(path, ctype string, body []byte, key string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", a+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Origin", a)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		if res.StatusCode >= 300 {
			t.Fatalf("%s: %d %v", path, res.StatusCode, m)
		}
		return m
	}
	post("/api/auth/sign-up/email", "application/json", []byte(`{"name":"Two","email":"two@example.com","password":"a long password"}`), "")
	key := post("/api/keys", "application/json", []byte(`{"name":"k"}`), "")["key"].(string)

	conn, _, err := websocket.Dial(ctx, "ws://"+addrB+"/api/toolkit/jobs/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
	if err != nil {
		t.Fatalf("socket on B: %v", err)
	}
	defer conn.CloseNow()

	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	_ = w.WriteField("tool", "upscale")
	_ = w.WriteField("quality", "1k") // the smallest frame: the worker renders under the race detector, and the size is not the subject
	fw, _ := w.CreateFormFile("image", "p.jpg")
	_, _ = fw.Write(product(400, 500))
	_ = w.Close()
	id := post("/api/toolkit/jobs/submit", w.FormDataContentType(), form.Bytes(), key)["jobId"].(string)

	seen := map[string]bool{}
	var result string
	for !seen["done"] {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("socket on B after %v: %v %s\n%s", seen, err, died(), logs.String())
		}
		var m struct {
			Type string
			Job  struct{ ID, Status, ResultURL string }
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("message %s: %v", msg, err)
		}
		if m.Type != "job" || m.Job.ID != id {
			continue
		}
		if m.Job.Status == "failed" || m.Job.Status == "cancelled" {
			t.Fatalf("the job %s: %s\n%s", m.Job.Status, msg, logs.String())
		}
		seen[m.Job.Status] = true
		result = m.Job.ResultURL
	}
	if !seen["queued"] && !seen["running"] {
		t.Errorf("B's socket saw %v; want the job's earlier states too", seen)
	}
	u, err := url.Parse(result)
	if err != nil || !strings.HasPrefix(u.Path, "/api/toolkit/assets/") {
		t.Fatalf("resultUrl %q", result)
	}
	req, _ := http.NewRequest("GET", b+u.Path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || len(body) < 1000 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") {
		t.Fatalf("the result from B: %d %s, %d bytes", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
}

// freshBucket creates a bucket of its own on the S3 server of base (an
// s3:// URL) and returns base naming it instead.
func freshBucket(t *testing.T, base string) string {
	t.Helper()
	cfg, err := s3.ParseURL(base)
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
	bucket := "instances-" + strings.ToLower(strings.ReplaceAll(time.Now().Format("150405.000000"), ".", ""))
	if _, err := client.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	u, _ := url.Parse(base)
	u.Host = bucket
	return u.String()
}
