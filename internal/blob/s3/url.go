package s3

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Config says where the S3 store keeps its bytes. ParseURL reads it from
// BLOB_URL; credentials are not part of it (see New).
type Config struct {
	// Bucket is the bucket name; it must exist.
	Bucket string
	// Endpoint is the base URL of an S3-compatible server, e.g.
	// "http://127.0.0.1:7070", which also switches to path-style requests
	// (http://host/bucket/key). Empty means AWS S3 with virtual-hosted
	// requests.
	Endpoint string
	// Region signs the requests; empty takes AWS_REGION (or the shared AWS
	// config), then "us-east-1".
	Region string
	// SpoolDir holds Put's temporary copies; empty means os.TempDir().
	SpoolDir string
}

// String returns the canonical BLOB_URL of c (SpoolDir is not part of it).
func (c Config) String() string {
	q := url.Values{}
	if c.Endpoint != "" {
		q.Set("endpoint", c.Endpoint)
	}
	if c.Region != "" {
		q.Set("region", c.Region)
	}
	u := url.URL{Scheme: "s3", Host: c.Bucket, RawQuery: q.Encode()}
	return u.String()
}

// ParseURL parses an S3 BLOB_URL:
//
//	s3://BUCKET[?endpoint=http://HOST:PORT][&region=REGION]
//
// BUCKET follows S3's naming rules (3 to 63 lowercase letters, digits, dots
// and hyphens). endpoint is an http or https URL with a host and nothing
// after it but an optional "/". No other parameter, no path, no user info
// and no fragment is accepted: credentials come from the standard AWS
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never from the
// URL, so that BLOB_URL can be logged.
func ParseURL(blobURL string) (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("blob: BLOB_URL %q: "+format, append([]any{blobURL}, args...)...)
	}
	u, err := url.Parse(blobURL)
	if err != nil {
		return bad("%v", err)
	}
	switch {
	case u.Scheme != "s3":
		return bad("want s3://bucket?endpoint=...&region=... (or no BLOB_URL for the data dir)")
	case u.Opaque != "":
		return bad("want s3://bucket")
	case u.User != nil:
		return bad("no credentials in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	case u.Path != "" && u.Path != "/":
		return bad("no path: keys go to the bucket's root")
	case u.Fragment != "" || u.RawFragment != "" || strings.Contains(blobURL, "#"):
		return bad("no fragment")
	}
	if err := checkBucket(u.Host); err != nil {
		return bad("%v", err)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("%v", err)
	}
	c := Config{Bucket: u.Host}
	for name, vals := range q {
		if len(vals) != 1 {
			return bad("%s given %d times", name, len(vals))
		}
		switch v := vals[0]; name {
		case "endpoint":
			if c.Endpoint, err = parseEndpoint(v); err != nil {
				return bad("endpoint: %v", err)
			}
		case "region":
			if err := checkRegion(v); err != nil {
				return bad("region: %v", err)
			}
			c.Region = v
		default:
			return bad("unknown parameter %q (want endpoint, region)", name)
		}
	}
	return c, nil
}

// checkBucket applies S3's bucket naming rules.
func checkBucket(b string) error {
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("bucket %q: want 3 to 63 characters", b)
	}
	for i := range len(b) {
		c := b[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return fmt.Errorf("bucket %q: want lowercase letters, digits, dots and hyphens", b)
		}
	}
	if !isAlnum(b[0]) || !isAlnum(b[len(b)-1]) {
		return fmt.Errorf("bucket %q: want a letter or digit first and last", b)
	}
	if strings.Contains(b, "..") || strings.Contains(b, ".-") || strings.Contains(b, "-.") {
		return fmt.Errorf("bucket %q: dots and hyphens must not touch", b)
	}
	if _, err := netip.ParseAddr(b); err == nil {
		return fmt.Errorf("bucket %q: must not look like an IP address", b)
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// parseEndpoint checks an S3 endpoint URL and returns it as scheme://host.
func parseEndpoint(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q: want http:// or https://", s)
	case u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery ||
		u.Fragment != "" || strings.Contains(s, "#") || (u.Path != "" && u.Path != "/"):
		return "", fmt.Errorf("%q: want scheme://host[:port] and nothing more", s)
	}
	host, port := u.Hostname(), u.Port()
	if ip, err := netip.ParseAddr(host); err == nil && ip.Zone() != "" || err != nil && !isHostname(host) {
		return "", fmt.Errorf("%q: bad host", s)
	}
	if n, err := strconv.Atoi(port); strings.HasSuffix(u.Host, ":") || port != "" && (err != nil || n < 1 || n > 65535) {
		return "", fmt.Errorf("%q: bad port", s)
	}
	return u.Scheme + "://" + u.Host, nil
}

// isHostname reports whether h is a DNS name: dot-separated labels of ASCII
// letters, digits and inner hyphens.
func isHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := range len(label) {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// checkRegion accepts AWS-style region names such as "us-east-1" (and the
// free-form lowercase names S3-compatible servers use).
func checkRegion(r string) error {
	if r == "" || len(r) > 32 {
		return fmt.Errorf("%q: want 1 to 32 characters", r)
	}
	for i := range len(r) {
		c := r[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("%q: want lowercase letters, digits and hyphens", r)
		}
	}
	return nil
}
