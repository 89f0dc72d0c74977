//go:build unix

package browsers

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// fakeWatched starts a "forever" browser in a process group of its own, a
// second process in that group (as a browser's renderers are), and a
// watcher of the group; prints both pids and waits to be killed. No
// Pdeathsig: only the watcher stops them.
func fakeWatched() {
	start := func(pgid int) *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fakeEnv+"=forever")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return cmd
	}
	browser := start(0)
	renderer := start(browser.Process.Pid)
	if _, err := watchGroup(browser.Process.Pid); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d %d\n", browser.Process.Pid, renderer.Process.Pid)
	select {}
}
