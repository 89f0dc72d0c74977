//go:build !unix && !windows

package browsers

import (
	"os"
	"syscall"
)

// sysProcAttr has no process options to set here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// A guard stops a launched browser: here only by Close, which kills the
// process.
type guard struct{ p *os.Process }

func newGuard(p *os.Process) (*guard, error) { return &guard{p}, nil }

func (g *guard) kill() error { return g.p.Kill() }

func (g *guard) release() {}
