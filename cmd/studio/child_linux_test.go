//go:build linux

package main

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the kernel kill cmd's process when the test binary dies
// (an interrupted run, a go test timeout, a panic), so that no
// `studio.test serve` outlives its test. The signal is tied to the thread
// that started the child, and Go ends a thread only when a goroutine locked
// to it exits, which these tests never do. It survives the exec of
// /bin/sh's `exec`.
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
