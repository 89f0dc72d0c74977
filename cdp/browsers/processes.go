package browsers

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// processes is where RunningBrowsers learns what runs on this machine.
// procDir reads Linux's /proc; the tests fill a /proc of their own.
type processes interface {
	// list returns the processes running now whose command line keep
	// accepts, each with its owner, its start and its working directory
	// (read only for those kept: most processes are no browser).
	list(keep func(args []string) bool) []process
	// listeners returns the user id of the socket listening on each TCP
	// port of 127.0.0.1 (bound to it or to every address); nil when not
	// known.
	listeners() map[int]int
}

// process is one process as a processes source tells it.
type process struct {
	pid  int
	args []string
	// uid and euid are its real and effective user ids; -1 when not
	// known. A process is a user's when both are that user's.
	uid, euid int
	// started is when it started; zero when not known.
	started time.Time
	// cwd is its working directory; empty when not known.
	cwd string
}

// unknownUID stands for a user id that could not be read: nobody's, so
// never the provider's (os.Getuid is never negative on Linux).
const unknownUID = -1

// procDir is a /proc directory: Linux's, or a test's.
type procDir string

func (proc procDir) list(keep func(args []string) bool) []process {
	dir := string(proc)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	boot := bootTime(dir)
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		pdir := filepath.Join(dir, e.Name())
		raw, err := os.ReadFile(filepath.Join(pdir, "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(raw, "\x00")), "\x00")
		if !keep(args) {
			continue
		}
		p := process{pid: pid, args: args, started: startTime(pdir, boot)}
		p.uid, p.euid = owner(pdir)
		if cwd, err := os.Readlink(filepath.Join(pdir, "cwd")); err == nil {
			p.cwd = cwd
		}
		out = append(out, p)
	}
	return out
}

// Loopback and every address as /proc/net/tcp and tcp6 write them: hex,
// each 32-bit word in the machine's order, little-endian (on a
// big-endian machine, s390x, a socket bound to 127.0.0.1 alone is not
// recognised, and its port is asked unchecked, as where /proc is not
// read).
const (
	hexLoopback4  = "0100007F"
	hexAny4       = "00000000"
	hexLoopbackV6 = "0000000000000000FFFF00000100007F" // ::ffff:127.0.0.1
	hexAny6       = "00000000000000000000000000000000"
)

// stListen is the state of a listening socket in /proc/net/tcp.
const stListen = "0A"

// listeners reads net/tcp and net/tcp6: the line of each socket, its
// local address and port (field 2), its state (field 4) and its owner's
// uid (field 8). A socket bound to 127.0.0.1 takes the port's
// connections before one bound to every address.
func (proc procDir) listeners() map[int]int {
	var owners map[int]int
	specific := map[int]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join(string(proc), "net", name))
		if err != nil {
			continue
		}
		if owners == nil {
			owners = map[int]int{}
		}
		for l := range strings.SplitSeq(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) < 8 || f[3] != stListen {
				continue
			}
			host, hexPort, _ := strings.Cut(f[1], ":")
			port, err1 := strconv.ParseUint(hexPort, 16, 16)
			uid, err2 := strconv.Atoi(f[7])
			if err1 != nil || err2 != nil {
				continue
			}
			switch strings.ToUpper(host) {
			case hexLoopback4, hexLoopbackV6:
				owners[int(port)], specific[int(port)] = uid, true
			case hexAny4, hexAny6:
				if !specific[int(port)] {
					owners[int(port)] = uid
				}
			}
		}
	}
	return owners
}

// owner reads the real and effective user ids of the process of a
// /proc/PID directory from the "Uid:" line of its status (real,
// effective, saved, filesystem). The line is the kernel's word on who
// runs the process whatever the process does to itself; the owner of
// the /proc/PID directory is not (it turns to root when the process
// makes itself undumpable, as sandboxed processes do), and a test cannot
// give a directory another owner without being root. unknownUID when the
// line cannot be read.
func owner(dir string) (uid, euid int) {
	f, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return unknownUID, unknownUID
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "Uid:")
		if !ok {
			continue
		}
		ids := strings.Fields(v)
		if len(ids) < 2 {
			break
		}
		r, err1 := strconv.Atoi(ids[0])
		e, err2 := strconv.Atoi(ids[1])
		if err1 != nil || err2 != nil {
			break
		}
		return r, e
	}
	return unknownUID, unknownUID
}

// userHZ is the unit of a process's start time in /proc/PID/stat: the
// kernel's USER_HZ, 100 on every architecture Linux runs browsers on.
const userHZ = 100

// bootTime reads when the machine booted (btime of /proc/stat); zero
// when it cannot.
func bootTime(proc string) time.Time {
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return time.Time{}
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(s, 0)
			}
		}
	}
	return time.Time{}
}

// startTime is when the process of a /proc/PID directory started: boot
// plus field 22 of its stat (in USER_HZ ticks); else the directory's
// modification time, which is close to it.
func startTime(dir string, boot time.Time) time.Time {
	if b, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil && !boot.IsZero() {
		// The command name, field 2, is in parentheses and may hold
		// spaces: count the fields after its closing one (field 3 on).
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			f := strings.Fields(string(b[i+1:]))
			if len(f) > 19 {
				if ticks, err := strconv.ParseInt(f[19], 10, 64); err == nil {
					return boot.Add(time.Duration(ticks) * time.Second / userHZ)
				}
			}
		}
	}
	if fi, err := os.Stat(dir); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}
