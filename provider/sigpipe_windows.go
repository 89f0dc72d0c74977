//go:build windows

package provider

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// ignoreSIGPIPE does nothing: Windows has no SIGPIPE.
func ignoreSIGPIPE() {}

// readerGone reports whether err is a write to a pipe whose reader has
// gone away. Windows says ERROR_NO_DATA ("The pipe is being closed", as
// Go's own os.TestEPIPE expects there), or ERROR_BROKEN_PIPE, never
// EPIPE.
func readerGone(err error) bool {
	return errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE) ||
		errors.Is(err, syscall.EPIPE)
}
