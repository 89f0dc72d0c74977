//go:build !unix && !windows

package provider

import (
	"errors"
	"syscall"
)

// ignoreSIGPIPE does nothing where there is no SIGPIPE.
func ignoreSIGPIPE() {}

// readerGone reports whether err is a write to a pipe whose reader has
// gone away.
func readerGone(err error) bool { return errors.Is(err, syscall.EPIPE) }
