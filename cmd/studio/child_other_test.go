//go:build !linux

package main

import "os/exec"

// dieWithTest does nothing where the kernel cannot tie a child's life to
// its parent's; the tests' cleanups still stop their children.
func dieWithTest(cmd *exec.Cmd) {}
