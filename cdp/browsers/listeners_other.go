//go:build !linux && !windows

package browsers

// sysListeners is not known here: on macOS gopsutil's net.Connections
// runs lsof, which shows a user only their own processes' sockets, so
// another user's listener could not be told from no listener at all.
func sysListeners() map[int]UserID { return nil }
