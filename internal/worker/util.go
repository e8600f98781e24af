package worker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
