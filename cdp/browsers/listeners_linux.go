package browsers

// sysListeners reads who listens on each port from /proc/net/tcp and
// tcp6.
func sysListeners() map[int]UserID { return listenerOwners(procNetSockets("/proc")) }
