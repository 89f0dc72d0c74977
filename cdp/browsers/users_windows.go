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
// owner is that process's account, or, for a process the provider cannot
// open (another user's), the pid's words: never the provider's.
func sysListeners() map[int]UserID {
	ctx := context.Background()
	conns, err := psnet.ConnectionsWithContext(ctx, "tcp")
	if err != nil {
		return nil
	}
	socks := []socket{}
	owners := map[int32]UserID{}
	for _, c := range conns {
		if c.Status != "LISTEN" {
			continue
		}
		addr, err := netipAddr(c.Laddr.IP)
		if err != nil {
			continue
		}
		owner, ok := owners[c.Pid]
		if !ok {
			owner = unknownOwner(int(c.Pid))
			if p, err := psprocess.NewProcessWithContext(ctx, c.Pid); err == nil {
				if us := processUsers(ctx, p); len(us) == 1 {
					owner = us[0]
				}
			}
			owners[c.Pid] = owner
		}
		socks = append(socks, socket{addr: addr, port: int(c.Laddr.Port), owner: owner})
	}
	return listenerOwners(socks)
}
