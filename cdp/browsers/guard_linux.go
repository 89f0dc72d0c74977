package browsers

import (
	"os"
	"syscall"
)

// sysProcAttr makes the launched browser die with us: the kernel sends it
// SIGKILL when the thread that started it exits (Pdeathsig), so a crash or
// a SIGKILL of the provider does not leave a browser behind. The browser
// gets its own process group so that Ctrl-C in a terminal reaches only the
// provider, which then closes the browser in order.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// A guard stops a launched browser and every process it started: here
// its process group, and the kernel's Pdeathsig when the provider dies.
type guard struct{ p *os.Process }

// newGuard guards a browser just started.
func newGuard(p *os.Process) (*guard, error) { return &guard{p}, nil }

// kill kills the browser's whole process group (its zygote, renderers
// and GPU process started in it), then the process itself.
func (g *guard) kill() error {
	_ = syscall.Kill(-g.p.Pid, syscall.SIGKILL)
	return g.p.Kill()
}

// release frees what the guard holds once the browser has exited:
// nothing here.
func (g *guard) release() {}
