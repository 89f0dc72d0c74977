package browsers

import (
	"context"
	"os/user"

	psnet "github.com/shirou/gopsutil/v4/net"
	psprocess "github.com/shirou/gopsutil/v4/process"
)

// processUsers is the account of a process's token (DOMAIN\name).
// Another user's process cannot be opened by a user who is not an
// administrator: none then, and the process is nobody's.
func processUsers(ctx context.Context, p *psprocess.Process) []UserID {
	name, err := p.UsernameWithContext(ctx)
	if err != nil || name == "" {
		return nil
	}
	return []UserID{UserID(name)}
}

// currentUser is the provider's account, as processUsers names a
// process's.
func currentUser() UserID {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return UserID(u.Username)
}

// sysListeners reads the TCP table (GetExtendedTcpTable), which names
// the process of every listening socket, whoever runs it; a socket's
// owner is that process's account (connSockets).
func sysListeners() map[int]UserID {
	ctx := context.Background()
	conns, err := psnet.ConnectionsWithContext(ctx, "tcp")
	if err != nil {
		return nil
	}
	return listenerOwners(connSockets(conns, func(pid int32) []UserID {
		p, err := psprocess.NewProcessWithContext(ctx, pid)
		if err != nil {
			return nil
		}
		return processUsers(ctx, p)
	}))
}
