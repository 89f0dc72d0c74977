//go:build unix

package browsers

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// watchGroup starts a watcher of the process group pgid: a shell, in a
// process group of its own, that reads its standard input until it ends
// and then kills the group. The provider holds the only write end, the
// file returned: when the provider dies, however it dies, the kernel
// closes it and the watcher kills the browser; Close of the file after
// the browser's exit lets the watcher go (its kill then finds no group).
// Where the kernel kills a child with its parent (Linux's Pdeathsig),
// no watcher is needed; macOS has none.
func watchGroup(pgid int) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watch browser: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("read _; kill -s KILL -- -%d 2>/dev/null; exit 0", pgid))
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch browser: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	return w, nil
}
