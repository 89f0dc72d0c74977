package browsers

import (
	"context"

	psprocess "github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"
)

// processUsers are the real and effective user ids of a process, from
// the kernel's kinfo_proc (sysctl kern.proc.pid): gopsutil's Uids gives
// the effective one alone on macOS. None when they cannot be read.
func processUsers(_ context.Context, p *psprocess.Process) []UserID {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", int(p.Pid))
	if err != nil || k == nil {
		return nil
	}
	return []UserID{uidUser(int(k.Eproc.Pcred.P_ruid)), uidUser(int(k.Eproc.Ucred.Uid))}
}
