//go:build unix

package httpguard

import "syscall"

// DefaultMaxConns is half the process's open-file limit (the other half is
// left to the database, blobs being served and outgoing calls), between 64
// and 100,000; 4,096 when the limit cannot be read. Go raises the soft limit
// to the hard one at start (since Go 1.19), so this is the hard limit.
func DefaultMaxConns() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == 0 {
		return 4096
	}
	return int(min(max(lim.Cur/2, 64), 100_000))
}
