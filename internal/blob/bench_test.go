package blob

import (
	"bytes"
	"io"
	"testing"
)

// benchSize is a large fashion image.
const benchSize = 5 << 20

// BenchmarkPut measures Put of a 5 MB blob (MB/s is the throughput), on
// disk and, when TEST_S3_URL is set, on S3:
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/blob/
func BenchmarkPut(b *testing.B) {
	data := randomBytes(benchSize)
	for _, e := range engines() {
		b.Run(e.name, func(b *testing.B) {
			if e.skip != "" {
				b.Skip(e.skip)
			}
			s := e.new(b)
			b.SetBytes(benchSize)
			for b.Loop() {
				if _, err := s.Put(b.Context(), "bench/put", bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead measures Open and a full read of a 5 MB blob.
func BenchmarkRead(b *testing.B) {
	data := randomBytes(benchSize)
	for _, e := range engines() {
		b.Run(e.name, func(b *testing.B) {
			if e.skip != "" {
				b.Skip(e.skip)
			}
			s := e.new(b)
			if _, err := s.Put(b.Context(), "bench/read", bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 256<<10)
			b.SetBytes(benchSize)
			for b.Loop() {
				o, err := s.Open(b.Context(), "bench/read")
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{o}, buf)
				o.Close()
				if err != nil || n != benchSize {
					b.Fatalf("read %d bytes, %v", n, err)
				}
			}
		})
	}
}
