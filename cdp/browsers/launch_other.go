//go:build !linux

package browsers

import (
	"os"
	"syscall"
)

// sysProcAttr has no process options to set outside Linux: Close is the
// only thing that stops the browser there.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killBrowser kills the browser process.
func killBrowser(p *os.Process) error { return p.Kill() }
