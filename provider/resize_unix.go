//go:build unix

package provider

import (
	"os"
	"os/signal"
	"syscall"
)

// followResize tells c when the terminal changes size (SIGWINCH), until
// the returned stop is called.
func followResize(c chan<- struct{}, _ func() (cols, rows int)) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-sig:
				select {
				case c <- struct{}{}:
				default: // a redraw is due already
				}
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
		<-stopped
	}
}
