//go:build !unix

package httpguard

// DefaultMaxConns is 4,096 where the open-file limit cannot be read.
func DefaultMaxConns() int { return 4096 }
