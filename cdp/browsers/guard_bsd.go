//go:build unix && !linux

package browsers

import (
	"os"
	"syscall"
)

// sysProcAttr gives the launched browser its own process group, so that
// Ctrl-C in a terminal reaches only the provider, and the guard can kill
// the browser with every process it started.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// A guard stops a launched browser and every process it started: its
// process group, killed by Close, or by a watcher when the provider dies
// (macOS has no Pdeathsig).
type guard struct {
	p       *os.Process
	watcher *os.File
}

// newGuard guards a browser just started in a process group of its own.
func newGuard(p *os.Process) (*guard, error) {
	w, err := watchGroup(p.Pid)
	return &guard{p: p, watcher: w}, err
}

// kill kills the browser's whole process group, then the process
// itself.
func (g *guard) kill() error {
	_ = syscall.Kill(-g.p.Pid, syscall.SIGKILL)
	return g.p.Kill()
}

// release lets the watcher go once the browser has exited.
func (g *guard) release() {
	if g.watcher != nil {
		g.watcher.Close()
	}
}
