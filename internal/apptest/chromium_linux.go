//go:build linux

package apptest

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the kernel kill the browser when the test binary dies,
// even by a panic or a timeout that runs no cleanup: a package's one
// browser outlives every test but must not outlive the binary.
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
