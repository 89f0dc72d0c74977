//go:build unix

package provider

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// On unix, SIGWINCH tells of a new terminal size; after stop it no longer
// does.
func TestFollowResizeBySIGWINCH(t *testing.T) {
	c := make(chan struct{}, 1)
	stop := followResize(c, nil)
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c:
	case <-time.After(10 * time.Second): // a guard, not a wait: the signal comes at once
		t.Fatal("SIGWINCH not told")
	}
	stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c:
		t.Error("told of SIGWINCH after stop")
	default:
	}
}
