//go:build linux

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

// killBrowser kills the browser's whole process group (its zygote,
// renderers and GPU process started in it), then the process itself.
func killBrowser(p *os.Process) error {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	return p.Kill()
}
