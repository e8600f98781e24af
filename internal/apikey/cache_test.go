package apikey

import (
	"testing"
	"time"
)

// TestCacheBounded: the cache never holds more than its size, and an
// entry read at an older epoch or past its time is not served.
func TestCacheBounded(t *testing.T) {
	c := cache{max: 8, ttl: time.Hour, m: map[[32]byte]*entry{}}
	for i := range 100 {
		c.put([32]byte{byte(i)}, &entry{epoch: 1, until: time.Now().Add(time.Hour)})
		if len(c.m) > 8 {
			t.Fatalf("%d entries after %d puts; want at most 8", len(c.m), i+1)
		}
	}
	c.put([32]byte{200}, &entry{epoch: 1, until: time.Now().Add(time.Hour)})
	if c.get([32]byte{200}, 1) == nil {
		t.Error("a fresh entry is not served")
	}
	if c.get([32]byte{200}, 2) != nil {
		t.Error("an entry read before the epoch moved is served")
	}
	c.put([32]byte{201}, &entry{epoch: 1, until: time.Now().Add(-time.Millisecond)})
	if c.get([32]byte{201}, 1) != nil {
		t.Error("an expired entry is served")
	}
}
