package s3

import (
	"strings"
	"testing"
)

var goodURLs = []struct {
	url  string
	want Config
}{
	{"s3://studio-test?endpoint=http://127.0.0.1:7070&region=us-east-1",
		Config{Bucket: "studio-test", Endpoint: "http://127.0.0.1:7070", Region: "us-east-1"}},
	{"s3://studio-assets", Config{Bucket: "studio-assets"}},
	{"s3://studio-assets/", Config{Bucket: "studio-assets"}},
	{"s3://my.bucket.01?region=eu-west-3", Config{Bucket: "my.bucket.01", Region: "eu-west-3"}},
	{"s3://abc?endpoint=https://s3.example.com/", Config{Bucket: "abc", Endpoint: "https://s3.example.com"}},
	{"s3://abc?endpoint=https%3A%2F%2Fminio.internal%3A9000&region=auto",
		Config{Bucket: "abc", Endpoint: "https://minio.internal:9000", Region: "auto"}},
	{"s3://abc?endpoint=http://[::1]:7070", Config{Bucket: "abc", Endpoint: "http://[::1]:7070"}},
	{"S3://abc?region=us-east-1&endpoint=http://localhost:7070",
		Config{Bucket: "abc", Endpoint: "http://localhost:7070", Region: "us-east-1"}},
	{"s3://" + strings.Repeat("b", 63), Config{Bucket: strings.Repeat("b", 63)}},
}

var badURLs = []struct {
	url, wantErr string
}{
	{"", "want s3://"},
	{"studio-test", "want s3://"},
	{"file:///data/blobs", "want s3://"},
	{"gs://bucket", "want s3://"},
	{"s3:bucket", "want s3://bucket"},
	{"s3://", "bucket"},
	{"s3://ab", "3 to 63"},
	{"s3://" + strings.Repeat("b", 64), "3 to 63"},
	{"s3://Studio", "lowercase"},
	{"s3://under_score", "lowercase"},
	{"s3://-abc", "first and last"},
	{"s3://abc.", "first and last"},
	{"s3://a..b", "must not touch"},
	{"s3://a.-b", "must not touch"},
	{"s3://192.168.1.10", "IP address"},
	{"s3://bucket:9000", "lowercase"},
	{"s3://key:secret@bucket", "no credentials"},
	{"s3://bucket/prefix", "no path"},
	{"s3://bucket#frag", "no fragment"},
	{"s3://bucket?region=us-east-1&region=eu-west-1", "2 times"},
	{"s3://bucket?access=AKIA&secret=x", "unknown parameter"},
	{"s3://bucket?endpoint=127.0.0.1:7070", "endpoint"},
	{"s3://bucket?endpoint=ftp://host", "http:// or https://"},
	{"s3://bucket?endpoint=http://", "bad host"},
	{"s3://bucket?endpoint=http://host/path", "nothing more"},
	{"s3://bucket?endpoint=http://host%3Fx%3D1", "nothing more"},
	{"s3://bucket?endpoint=http://u:p@host", "nothing more"},
	{"s3://bucket?endpoint=http://host:0", "bad port"},
	{"s3://bucket?endpoint=http://host:70000", "bad port"},
	{"s3://bucket?endpoint=http://host:", "bad port"},
	{"s3://bucket?endpoint=http://bad_host", "bad host"},
	{"s3://bucket?endpoint=", "want http://"},
	{"s3://bucket?region=", "1 to 32"},
	{"s3://bucket?region=US-EAST-1", "lowercase"},
	{"s3://bucket?region=us east", "lowercase"},
	{"s3://bucket?a=1;b=2", "semicolon"},
	{"s3://bu%63ket", "invalid URL escape"},
	{"s3://bucket\n", "invalid control character"},
}

func TestParseURL(t *testing.T) {
	for _, tt := range goodURLs {
		got, err := ParseURL(tt.url)
		if err != nil || got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tt.url, got, err, tt.want)
		}
	}
	for _, tt := range badURLs {
		got, err := ParseURL(tt.url)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseURL(%q) = %+v, %v; want an error with %q", tt.url, got, err, tt.wantErr)
		}
	}
}

func TestConfigString(t *testing.T) {
	for _, tt := range goodURLs {
		s := tt.want.String()
		got, err := ParseURL(s)
		if err != nil || got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", s, got, err, tt.want)
		}
	}
	c := Config{Bucket: "studio-test", Endpoint: "http://127.0.0.1:7070", Region: "us-east-1"}
	if got, want := c.String(), "s3://studio-test?endpoint=http%3A%2F%2F127.0.0.1%3A7070&region=us-east-1"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

// FuzzParseURL checks that ParseURL never panics, that what it accepts
// follows the rules, and that an accepted config's String parses back to
// the same config.
func FuzzParseURL(f *testing.F) {
	for _, tt := range goodURLs {
		f.Add(tt.url)
	}
	for _, tt := range badURLs {
		f.Add(tt.url)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := ParseURL(raw)
		if err != nil {
			if c != (Config{}) {
				t.Fatalf("ParseURL(%q) failed but returned %+v", raw, c)
			}
			return
		}
		if err := checkBucket(c.Bucket); err != nil {
			t.Fatalf("ParseURL(%q) accepted bucket %q: %v", raw, c.Bucket, err)
		}
		if c.Region != "" {
			if err := checkRegion(c.Region); err != nil {
				t.Fatalf("ParseURL(%q) accepted region %q: %v", raw, c.Region, err)
			}
		}
		if c.Endpoint != "" && !strings.HasPrefix(c.Endpoint, "http://") && !strings.HasPrefix(c.Endpoint, "https://") {
			t.Fatalf("ParseURL(%q) accepted endpoint %q", raw, c.Endpoint)
		}
		back, err := ParseURL(c.String())
		if err != nil || back != c {
			t.Fatalf("ParseURL(%q) = %+v; its String %q parses to %+v, %v", raw, c, c.String(), back, err)
		}
	})
}
