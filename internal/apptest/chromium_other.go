//go:build !linux

package apptest

import "os/exec"

// dieWithTest does nothing where the kernel offers no parent-death signal.
func dieWithTest(cmd *exec.Cmd) {}
