package browserless

import (
	"os/exec"
	"syscall"
)

// setGroup puts Browserless in a process group of its own, with the
// browsers it starts, which dies with the test binary.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// stopGroup asks Browserless to stop (it closes its browsers).
func stopGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// killGroup kills Browserless and every process of its group.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
