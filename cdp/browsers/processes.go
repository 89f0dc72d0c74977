package browsers

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	psnet "github.com/shirou/gopsutil/v4/net"
	psprocess "github.com/shirou/gopsutil/v4/process"
)

// processes is where RunningBrowsers learns what runs on this machine:
// the OS's (osProcesses, through gopsutil on Linux, macOS and Windows),
// or a test's.
type processes interface {
	// list returns the processes running now whose command line keep
	// accepts, each with its owner, its start and its working directory
	// (read only for those kept: most processes are no browser).
	list(keep func(args []string) bool) []process
	// listeners returns who listens on each TCP port of 127.0.0.1 (a
	// socket bound to it or to every address); nil when not known.
	listeners() map[int]UserID
}

// process is one process as a processes source tells it.
type process struct {
	pid  int
	args []string
	// users are who runs it, every one of which must be the provider's
	// user for the process to be that user's: on Unix its real and
	// effective user ids, on Windows its token's account. None when not
	// known: then it is nobody's.
	users []UserID
	// started is when it started; zero when not known.
	started time.Time
	// cwd is its working directory; empty when not known.
	cwd string
}

// A UserID names a user as the OS tells who runs a process or listens on
// a port: "uid 1000" on Unix, the account on Windows (DOMAIN\name, as
// its token's SID is looked up).
type UserID string

// uidUser is the UserID of a Unix user id.
func uidUser(uid int) UserID { return UserID("uid " + strconv.Itoa(uid)) }

// is says whether u and v name one user (Windows' account names are
// case-insensitive); an unknown user is nobody.
func (u UserID) is(v UserID) bool { return u != "" && strings.EqualFold(string(u), string(v)) }

// runs says whether the process is me's: every one of its users is me.
func (p process) runs(me UserID) bool {
	if len(p.users) == 0 {
		return false
	}
	for _, u := range p.users {
		if !u.is(me) {
			return false
		}
	}
	return true
}

// osProcesses are this machine's processes, read through gopsutil: on
// Linux from /proc, on macOS from sysctl and libproc, on Windows from
// the process snapshot and each process's memory. A process of another
// user whose command line the OS keeps from the provider (macOS,
// Windows) is left out: it is no candidate anyway.
type osProcesses struct{}

func (osProcesses) list(keep func(args []string) bool) []process {
	ctx := context.Background()
	ps, err := psprocess.ProcessesWithContext(ctx)
	if err != nil {
		return nil
	}
	var out []process
	for _, p := range ps {
		args, err := p.CmdlineSliceWithContext(ctx)
		if err != nil || len(args) == 0 || !keep(args) {
			continue
		}
		proc := process{pid: int(p.Pid), args: args, users: processUsers(ctx, p)}
		if ms, err := p.CreateTimeWithContext(ctx); err == nil && ms > 0 {
			proc.started = time.UnixMilli(ms)
		}
		if cwd, err := p.CwdWithContext(ctx); err == nil {
			proc.cwd = cwd
		}
		out = append(out, proc)
	}
	return out
}

func (osProcesses) listeners() map[int]UserID { return sysListeners() }

// A socket is one TCP socket listening on this machine: its local
// address and port, and who listens.
type socket struct {
	addr  netip.Addr
	port  int
	owner UserID
}

// listenerOwners is who listens on each port of 127.0.0.1: the owner of
// a socket bound to 127.0.0.1 (or to ::ffff:127.0.0.1), which takes the
// port's connections before one bound to every address (0.0.0.0, ::);
// sockets on other addresses are not asked through 127.0.0.1. Nil when
// socks is nil (not known).
func listenerOwners(socks []socket) map[int]UserID {
	if socks == nil {
		return nil
	}
	owners := map[int]UserID{}
	specific := map[int]bool{}
	for _, s := range socks {
		a := s.addr.Unmap()
		switch {
		case a == netip.AddrFrom4([4]byte{127, 0, 0, 1}):
			owners[s.port], specific[s.port] = s.owner, true
		case a.IsUnspecified() && !specific[s.port]:
			owners[s.port] = s.owner
		}
	}
	return owners
}

// Loopback and every address as /proc/net/tcp and tcp6 write them: hex,
// each 32-bit word in the machine's order, little-endian (on a
// big-endian machine, s390x, a socket bound to 127.0.0.1 alone is not
// recognised, and its port is asked unchecked, as where no listener is
// known).
var procAddrs = map[string]netip.Addr{
	"0100007F":                         netip.AddrFrom4([4]byte{127, 0, 0, 1}),
	"00000000":                         netip.IPv4Unspecified(),
	"0000000000000000FFFF00000100007F": netip.MustParseAddr("::ffff:127.0.0.1"),
	"00000000000000000000000000000000": netip.IPv6Unspecified(),
}

// stListen is the state of a listening socket in /proc/net/tcp.
const stListen = "0A"

// procNetSockets reads the listening sockets of net/tcp and net/tcp6
// under a /proc directory (Linux's, or a test's): the line of each
// socket, its local address and port (field 2), its state (field 4) and
// its owner's uid (field 8). The owner is the kernel's word on whose
// socket it is, for every user's socket (gopsutil's net.Connections
// reads the same files, then every process's descriptors for a pid that
// is not needed here). Nil when neither file can be read.
func procNetSockets(proc string) []socket {
	var out []socket
	for _, name := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join(proc, "net", name))
		if err != nil {
			continue
		}
		if out == nil {
			out = []socket{}
		}
		for l := range strings.SplitSeq(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) < 8 || f[3] != stListen {
				continue
			}
			host, hexPort, _ := strings.Cut(f[1], ":")
			port, err1 := strconv.ParseUint(hexPort, 16, 16)
			uid, err2 := strconv.Atoi(f[7])
			addr, ok := procAddrs[strings.ToUpper(host)]
			if err1 != nil || err2 != nil || !ok {
				continue
			}
			out = append(out, socket{addr: addr, port: int(port), owner: uidUser(uid)})
		}
	}
	return out
}

// connSockets are the listening sockets among gopsutil's connections,
// each owned by the user of its process (usersOf, asked once a pid): a
// process whose user is not told (another user's, which a user who is not
// an administrator cannot open on Windows) owns its sockets as
// unknownOwner, never the provider's.
func connSockets(conns []psnet.ConnectionStat, usersOf func(pid int32) []UserID) []socket {
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
			if us := usersOf(c.Pid); len(us) == 1 {
				owner = us[0]
			}
			owners[c.Pid] = owner
		}
		socks = append(socks, socket{addr: addr, port: int(c.Laddr.Port), owner: owner})
	}
	return socks
}

// unknownOwner is the owner of a socket whose process's user cannot be
// read: never the provider's (its own processes can always be read).
func unknownOwner(pid int) UserID {
	return UserID("pid " + strconv.Itoa(pid) + ", whose user is not told")
}

// netipAddr parses an address as gopsutil writes a socket's, without
// its zone.
func netipAddr(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return a.WithZone(""), err
}
