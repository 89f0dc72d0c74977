//go:build unix

package browsers

import (
	"os"
	"syscall"
)

// fileOwner is the user id that owns a file; ok is false where the OS
// does not tell.
func fileOwner(fi os.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
