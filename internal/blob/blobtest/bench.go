package blobtest

import (
	"bytes"
	"io"
	"testing"
)

// benchSize is a large fashion image.
const benchSize = 5 << 20

// BenchPut measures Put of a 5 MB blob (MB/s is the throughput).
func BenchPut(b *testing.B, newStore func(t testing.TB) *Store) {
	data := RandomBytes(benchSize)
	s := newStore(b)
	b.SetBytes(benchSize)
	for b.Loop() {
		if _, err := s.Put(b.Context(), "bench/put", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchRead measures Open and a full read of a 5 MB blob.
func BenchRead(b *testing.B, newStore func(t testing.TB) *Store) {
	data := RandomBytes(benchSize)
	s := newStore(b)
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
}
