// Package s3 keeps blobs in one bucket of AWS S3 or of an S3-compatible
// server (versitygw, MinIO, Ceph, R2...) through the AWS SDK: the blob.Store
// that BLOB_URL=s3://... selects. ParseURL reads BLOB_URL; New opens the
// bucket.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"studio/internal/blob"
)

// Store keeps blobs as objects in one bucket of AWS S3 or of an S3-compatible
// server (versitygw, MinIO, Ceph, R2...), each key an object key.
//
// Put spools the body to a temporary file first (in S3Config.SpoolDir) and
// then sends one PutObject with a known Content-Length: a single PUT is
// atomic on S3, a failed or cancelled body never reaches the bucket, SigV4
// can sign the payload over plain HTTP, and the SDK can retry from the file.
// Blobs here are images and packs of tens of megabytes at most, well under
// PutObject's 5 GB limit, so multipart uploads would add requests and
// failure modes for nothing.
//
// Open sends a HeadObject and no GetObject yet: the Object issues a ranged
// GetObject ("Range: bytes=OFF-") at its first Read after each Seek, so
// http.ServeContent serves a range without fetching the whole object.
type Store struct {
	client   *awss3.Client
	bucket   string
	spoolDir string
	// transport is the client's, kept to close its idle connections.
	transport *http.Transport
}

// New returns the S3 store for c and checks that the bucket answers.
// Credentials come from the standard AWS chain: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), then the shared AWS files
// and the roles of ECS, EKS or EC2. Request checksums are computed and
// response checksums validated only when an operation requires them, which
// S3-compatible servers need.
func New(ctx context.Context, c Config) (*Store, error) {
	client, tr, err := newClient(ctx, c)
	if err != nil {
		return nil, err
	}
	if _, err := client.HeadBucket(ctx, &awss3.HeadBucketInput{Bucket: &c.Bucket}); err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("blob: bucket %s: %w", c.Bucket, err)
	}
	return &Store{client: client, bucket: c.Bucket, spoolDir: c.SpoolDir, transport: tr}, nil
}

// newClient builds the S3 client of c (see New) and returns its
// transport.
func newClient(ctx context.Context, c Config) (*awss3.Client, *http.Transport, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("blob: AWS config: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	// The SDK's client hides its transport, so Close could not release its
	// connections: use a copy of that transport (the SDK's timeouts, pool
	// sizes and AWS_CA_BUNDLE roots) in a client of our own that, like the
	// SDK's, returns redirects (S3's answer to a wrong region) as errors.
	bc, ok := cfg.HTTPClient.(*awshttp.BuildableClient)
	if !ok {
		bc = awshttp.NewBuildableClient()
	}
	tr := bc.GetTransport()
	cfg.HTTPClient = &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	client := awss3.NewFromConfig(cfg, func(o *awss3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
			o.UsePathStyle = true
		}
	})
	return client, tr, nil
}

// Close closes the idle connections to the server.
func (s *Store) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// spoolPattern names Put's spool files (os.CreateTemp fills in the star).
const spoolPattern = "blob-put-*"

// Put stores r's bytes under key; see S3 for how.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := blob.CheckKey(key); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(s.spoolDir, spoolPattern)
	if err != nil {
		return 0, fmt.Errorf("blob: put %s: spool: %w", key, err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name()) // best effort; the error that matters is Put's
	}()
	n, err := blob.CopyCtx(ctx, f, r)
	if err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("blob: put %s: spool: %w", key, err)
	}
	_, err = s.client.PutObject(ctx, &awss3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &key,
		Body:          f,
		ContentLength: &n,
	})
	if err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	return n, nil
}

// Open sends a HeadObject for key and returns a blob.Object that fetches the
// bytes lazily. The Object's requests use ctx, so it must outlive them (an
// HTTP request's context does). Each GetObject carries the ETag seen by
// Open in If-Match: if the key is overwritten while the Object is being
// read, Read fails rather than mix two versions (on servers that keep
// ETags: versitygw --nometa does not).
func (s *Store) Open(ctx context.Context, key string) (blob.Object, error) {
	if err := blob.CheckKey(key); err != nil {
		return nil, err
	}
	head, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return nil, s3Err("open", key, err)
	}
	return &s3Object{
		ctx:  ctx,
		s:    s,
		key:  key,
		etag: aws.ToString(head.ETag),
		info: blob.Info{Size: aws.ToInt64(head.ContentLength), ModTime: aws.ToTime(head.LastModified)},
	}, nil
}

// Stat sends a HeadObject for key.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	if err := blob.CheckKey(key); err != nil {
		return blob.Info{}, err
	}
	head, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return blob.Info{}, s3Err("stat", key, err)
	}
	return blob.Info{Size: aws.ToInt64(head.ContentLength), ModTime: aws.ToTime(head.LastModified)}, nil
}

// Delete sends a DeleteObject for key.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil && !isNotFound(err) { // S3 answers 204 anyway; some servers say NoSuchKey
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// Walk lists the objects under prefix, a page of up to 1,000 at a time.
func (s *Store) Walk(ctx context.Context, prefix string, fn func(key string, info blob.Info) error) error {
	in := &awss3.ListObjectsV2Input{Bucket: &s.bucket}
	if prefix != "" {
		in.Prefix = &prefix
	}
	pages := awss3.NewListObjectsV2Paginator(s.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("blob: walk %s: %w", prefix, err)
		}
		for _, o := range page.Contents {
			if err := fn(aws.ToString(o.Key), blob.Info{Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// SweepTemp removes the spool files ("blob-put-*" in the spool folder) of
// Puts a crash interrupted. Nothing temporary is kept in the bucket: a Put
// is one PutObject, which S3 applies whole or not at all.
func (s *Store) SweepTemp(ctx context.Context, before time.Time) (n int, size int64, err error) {
	dir := s.spoolDir
	if dir == "" {
		dir = os.TempDir()
	}
	matches, err := filepath.Glob(filepath.Join(dir, spoolPattern))
	if err != nil {
		return 0, 0, err
	}
	for _, m := range matches {
		if err := ctx.Err(); err != nil {
			return n, size, err
		}
		fi, err := os.Lstat(m)
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(before) {
			continue // gone already, not ours, or a Put spooling now
		}
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, size, fmt.Errorf("blob: sweep spool files: %w", err)
		}
		n++
		size += fi.Size()
	}
	return n, size, nil
}

// isNotFound reports whether err is S3's answer for a missing key:
// NoSuchKey from GetObject and DeleteObject, a bare 404 (NotFound) from
// HeadObject.
func isNotFound(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		}
	}
	return false
}

// s3Err wraps an S3 error, turning a missing key into blob.ErrNotFound.
func s3Err(op, key string, err error) error {
	if isNotFound(err) {
		return fmt.Errorf("blob: %s %s: %w", op, key, blob.ErrNotFound)
	}
	return fmt.Errorf("blob: %s %s: %w", op, key, err)
}

// s3Object reads an object through ranged GetObject requests: body is the
// open response positioned at off, or nil until the next Read.
type s3Object struct {
	ctx    context.Context
	s      *Store
	key    string
	etag   string
	info   blob.Info
	off    int64
	body   io.ReadCloser
	closed bool
}

func (o *s3Object) Info() blob.Info { return o.info }

func (o *s3Object) Read(p []byte) (int, error) {
	if o.closed {
		return 0, fmt.Errorf("blob: read %s: %w", o.key, os.ErrClosed)
	}
	if o.off >= o.info.Size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if o.body == nil {
		in := &awss3.GetObjectInput{
			Bucket: &o.s.bucket,
			Key:    &o.key,
			Range:  aws.String("bytes=" + strconv.FormatInt(o.off, 10) + "-"),
		}
		if o.etag != "" {
			in.IfMatch = &o.etag
		}
		out, err := o.s.client.GetObject(o.ctx, in)
		if err != nil {
			var ae smithy.APIError
			if errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed" {
				return 0, fmt.Errorf("blob: read %s: overwritten while being read: %w", o.key, err)
			}
			return 0, s3Err("read", o.key, err)
		}
		o.body = out.Body
	}
	n, err := o.body.Read(p)
	o.off += int64(n)
	switch {
	case err == io.EOF:
		o.closeBody()
		if o.off < o.info.Size {
			return n, fmt.Errorf("blob: read %s: %w", o.key, io.ErrUnexpectedEOF)
		}
		if n > 0 {
			err = nil // the next Read says EOF
		}
		return n, err
	case err != nil:
		o.closeBody() // the next Read starts a new request at off
		return n, fmt.Errorf("blob: read %s: %w", o.key, err)
	}
	return n, nil
}

// Seek only moves the offset; a move drops the open response, and the next
// Read asks for the bytes from there.
func (o *s3Object) Seek(offset int64, whence int) (int64, error) {
	if o.closed {
		return 0, fmt.Errorf("blob: seek %s: %w", o.key, os.ErrClosed)
	}
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = o.off + offset
	case io.SeekEnd:
		abs = o.info.Size + offset
	default:
		return 0, fmt.Errorf("blob: seek %s: bad whence %d", o.key, whence)
	}
	if abs < 0 {
		return 0, fmt.Errorf("blob: seek %s: negative position %d", o.key, abs)
	}
	if abs != o.off {
		o.closeBody()
		o.off = abs
	}
	return abs, nil
}

// Close drops the open response, if any.
func (o *s3Object) Close() error {
	if o.closed {
		return fmt.Errorf("blob: close %s: %w", o.key, os.ErrClosed)
	}
	o.closed = true
	o.closeBody()
	return nil
}

func (o *s3Object) closeBody() {
	if o.body != nil {
		o.body.Close() // a response body's Close error tells nothing about the bytes read
		o.body = nil
	}
}
