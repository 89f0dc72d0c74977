//go:build !darwin && !windows

package browsers

import (
	"context"

	psprocess "github.com/shirou/gopsutil/v4/process"
)

// processUsers are the real and effective user ids of a process: on
// Linux the "Uid:" line of /proc/PID/status (real, effective, saved,
// filesystem), the kernel's word on who runs the process whatever it
// does to itself (the owner of /proc/PID turns to root when a process
// makes itself undumpable, as sandboxed processes do). None when they
// cannot be read.
func processUsers(ctx context.Context, p *psprocess.Process) []UserID {
	uids, err := p.UidsWithContext(ctx)
	if err != nil || len(uids) < 2 {
		return nil
	}
	return []UserID{uidUser(int(uids[0])), uidUser(int(uids[1]))}
}
