//go:build unix

package provider

import (
	"errors"
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE makes a write to a host that went away an error to handle
// rather than a signal that kills the provider: Go's runtime exits on
// SIGPIPE from a write to stdout unless the program handles the signal,
// and a change notification can be on its way when the host disconnects.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }

// readerGone reports whether err is a write to a pipe whose reader has
// gone away.
func readerGone(err error) bool { return errors.Is(err, syscall.EPIPE) }
