//go:build unix

package provider

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize tells c when the terminal changes size (SIGWINCH), until
// the returned stop is called.
func notifyResize(c chan<- os.Signal) (stop func()) {
	signal.Notify(c, syscall.SIGWINCH)
	return func() { signal.Stop(c) }
}
