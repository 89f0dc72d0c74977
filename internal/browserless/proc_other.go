//go:build !linux

package browserless

import "os/exec"

// Elsewhere Browserless never starts (Installed); these are not reached.

func setGroup(*exec.Cmd) {}

func stopGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
