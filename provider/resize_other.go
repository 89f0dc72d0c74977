//go:build !unix

package provider

import "os"

// notifyResize does nothing where there is no SIGWINCH: the screen is
// fitted to the terminal's size at each change.
func notifyResize(c chan<- os.Signal) (stop func()) { return func() {} }
