package bench

import (
	"fmt"
	"os"
	"strings"
)

// Memory reads a process's peak and current resident set size, in MB
// (2^20 bytes), from /proc/PID/status.
func Memory(pid int) (hwm, rss float64, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	return parseStatus(string(data))
}

// parseStatus picks VmHWM and VmRSS (in kB) out of a /proc/PID/status.
func parseStatus(status string) (hwm, rss float64, ok bool) {
	var seen int
	for line := range strings.Lines(status) {
		var kb float64
		switch {
		case strings.HasPrefix(line, "VmHWM:"):
			if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
				hwm, seen = kb/1024, seen|1
			}
		case strings.HasPrefix(line, "VmRSS:"):
			if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &kb); err == nil {
				rss, seen = kb/1024, seen|2
			}
		}
	}
	return hwm, rss, seen == 3
}
