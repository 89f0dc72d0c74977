package browsers

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	psnet "github.com/shirou/gopsutil/v4/net"
)

// The OS's sockets are read as the fake ones of the tests are written: a
// socket of this process on 127.0.0.1, and one on every IPv6 address
// (which takes 127.0.0.1's connections too), are the provider's user's.
// Linux reads /proc/net/tcp and tcp6, Windows its TCP table; macOS tells
// none (nil).
func TestListenersOfThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		if Listeners() != nil {
			t.Errorf("Listeners on %s = %v, want nil (not known)", runtime.GOOS, Listeners())
		}
		return
	}
	var ports []int
	for _, addr := range []string{"127.0.0.1:0", "[::]:0"} {
		network := "tcp4"
		if addr[0] == '[' {
			network = "tcp6"
		}
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Logf("listen %s: %v (no such network here)", addr, err)
			continue
		}
		t.Cleanup(func() { l.Close() })
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	owners := Listeners()
	for _, p := range ports {
		if u, ok := owners[p]; !ok || !u.is(currentUser()) {
			t.Errorf("port %d listened on by this process: owner %q (%v), want %q", p, u, ok, currentUser())
		}
	}
}

// Who listens on a port of 127.0.0.1: a socket bound to 127.0.0.1 (or
// ::ffff:127.0.0.1) takes the port's connections before one bound to
// every address, whichever comes first; a socket on another address is
// not reached through 127.0.0.1.
func TestListenerOwners(t *testing.T) {
	me, them := currentUser(), someoneElse
	sock := func(addr string, port int, u UserID) socket {
		return socket{addr: netip.MustParseAddr(addr), port: port, owner: u}
	}
	got := listenerOwners([]socket{
		sock("0.0.0.0", 9222, me), sock("127.0.0.1", 9222, them), // loopback after every address
		sock("127.0.0.1", 9223, them), sock("::", 9223, me), // loopback before every address
		sock("::ffff:127.0.0.1", 9224, them), sock("::", 9224, me),
		sock("::", 9225, me),
		sock("192.0.2.1", 9226, them),
		sock("::1", 9227, them),
	})
	want := map[int]UserID{9222: them, 9223: them, 9224: them, 9225: me}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listenerOwners = %v, want %v", got, want)
	}
	if listenerOwners(nil) != nil {
		t.Error("listenerOwners(nil) is not nil: sockets not known must stay not known")
	}
	if got := listenerOwners([]socket{}); got == nil || len(got) != 0 {
		t.Errorf("listenerOwners(none) = %v, want an empty map: known, nobody listens", got)
	}
	if a, err := netipAddr("[fe80::1%eth0]"); err != nil || a != netip.MustParseAddr("fe80::1") {
		t.Errorf("netipAddr of a zoned address = %v, %v", a, err)
	}
	if unknownOwner(4321).is(me) {
		t.Errorf("the owner of a process that cannot be read, %q, is the provider's", unknownOwner(4321))
	}
}

// Linux's /proc/net/tcp and tcp6 as the kernel writes them: the address
// in hex, word by word in the machine's order, the owner's uid.
func TestProcNetSockets(t *testing.T) {
	proc := t.TempDir()
	if err := os.Mkdir(filepath.Join(proc, "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, lines ...string) {
		head := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		if err := os.WriteFile(filepath.Join(proc, "net", name), []byte(head+strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := func(host string, port int, state string, uid int) string {
		return fmt.Sprintf("   0: %s:%04X 00000000:0000 %s 00000000:00000000 00:00000000 00000000 %5d        0 277852 1 0000000037102249 100 0 0 10 0\n", host, port, state, uid)
	}
	if procNetSockets(proc) != nil {
		t.Error("procNetSockets without net/tcp is not nil: not known")
	}
	write("tcp", line("0100007F", 9222, "0A", 1000), line("00000000", 9223, "0A", 1001), line("0100007F", 9224, "01", 1000), line("0101A8C0", 9225, "0A", 1000))
	write("tcp6", line("0000000000000000FFFF00000100007F", 9226, "0A", 1002), line("00000000000000000000000000000000", 9227, "0A", 0))
	got := procNetSockets(proc)
	want := []socket{
		{netip.MustParseAddr("127.0.0.1"), 9222, "uid 1000"},
		{netip.IPv4Unspecified(), 9223, "uid 1001"},
		{netip.MustParseAddr("::ffff:127.0.0.1"), 9226, "uid 1002"},
		{netip.IPv6Unspecified(), 9227, "uid 0"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("procNetSockets = %v, want %v (listening, on loopback or every address)", got, want)
	}
}

// The OS's processes are read through gopsutil as the fake ones are
// written: a browser this user runs (the test executable run again under
// a browser's name) is listed with its flags, its owner, its start and
// its working directory, and its helper process is not.
func TestRunningBrowsersOfThisMachine(t *testing.T) {
	dir := t.TempDir()
	name := "chromium"
	if runtime.GOOS == "windows" {
		name = "chrome.exe"
	}
	before := time.Now().Add(-time.Second) // a start is told to the second on Linux
	main := runFake(t, "wait", filepath.Join(dir, name), "--remote-debugging-port=9333", "--user-data-dir=profile", "--headless=new")
	helper := runFake(t, "wait", filepath.Join(dir, name), "--type=renderer", "--user-data-dir=profile")
	running, known := RunningBrowsers()
	if !known {
		t.Fatalf("RunningBrowsers on %s: not known", runtime.GOOS)
	}
	i := slices.IndexFunc(running, func(r Running) bool { return r.Pid == main.Process.Pid })
	if i < 0 {
		t.Fatalf("RunningBrowsers = %+v, want pid %d", running, main.Process.Pid)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r := running[i]
	if r.Exe != "chromium" && r.Exe != "chrome" || r.Port() != 9333 || !r.Headless || !sameDir(r.UserDataDir, filepath.Join(cwd, "profile")) {
		t.Errorf("pid %d = %+v, want chromium (or chrome), port 9333, headless, on %s", r.Pid, r, filepath.Join(cwd, "profile"))
	}
	if r.Started.Before(before) || r.Started.After(time.Now()) {
		t.Errorf("pid %d started %v, want between %v and now", r.Pid, r.Started, before)
	}
	if slices.ContainsFunc(running, func(r Running) bool { return r.Pid == helper.Process.Pid }) {
		t.Errorf("RunningBrowsers lists the helper, pid %d", helper.Process.Pid)
	}
	// Another user runs it: not listed.
	if got := runningFrom(osProcesses{}, someoneElse); slices.ContainsFunc(got, func(r Running) bool { return r.Pid == main.Process.Pid }) {
		t.Errorf("runningFrom for %s lists pid %d, the provider's user's", someoneElse, main.Process.Pid)
	}
}

// Each system's browsers are known by their executables' names: Linux's
// (chromium, chrome), Windows' (chrome.exe, msedge.exe, brave.exe, in
// any case) and macOS's (the app's name, spaces and all); their helpers
// (Windows' --type=, macOS's "… Helper (Renderer)") and other programs
// are not browsers.
func TestRunningFromEachSystemsBrowsers(t *testing.T) {
	me := currentUser()
	proc := &fakeProcs{}
	for i, arg0 := range []string{
		"/opt/google/chrome/chrome",
		`C:\Program Files\Google\Chrome\Application\chrome.exe`,
		`C:\Users\ann\AppData\Local\Microsoft\Edge SxS\Application\MSEDGE.EXE`,
		`C:\Program Files\BraveSoftware\Brave-Browser\Application\brave.exe`,
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		"/Users/ann/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
		"/Applications/Chromium.app/Contents/MacOS/Chromium",
		// not browsers
		"/Applications/Google Chrome.app/Contents/Frameworks/Google Chrome Framework.framework/Helpers/Google Chrome Helper (Renderer).app/Contents/MacOS/Google Chrome Helper (Renderer)",
		`C:\Windows\explorer.exe`,
		"/usr/bin/chromedriver",
	} {
		proc.procs = append(proc.procs, process{pid: 100 + i, args: []string{arg0, "--remote-debugging-port=9222"}, users: []UserID{me}})
	}
	proc.procs = append(proc.procs, process{pid: 200, args: []string{`C:\Program Files\Google\Chrome\Application\chrome.exe`, "--type=renderer"}, users: []UserID{me}})
	var got []string
	for _, r := range runningFrom(proc, me) {
		got = append(got, fmt.Sprintf("%d %s", r.Pid, r.Exe))
	}
	want := []string{"100 chrome", "101 chrome", "102 msedge", "103 brave", "104 Google Chrome", "105 Brave Browser", "106 Chromium"}
	if !slices.Equal(got, want) {
		t.Errorf("runningFrom = %q, want %q", got, want)
	}
}

// Windows' listeners: gopsutil's connections name each socket's process,
// whose user owns it; a process whose user is not told (another user's)
// owns its sockets as nobody the provider is, and each process is asked
// once.
func TestConnSockets(t *testing.T) {
	me := currentUser()
	conn := func(ip string, port uint32, status string, pid int32) psnet.ConnectionStat {
		return psnet.ConnectionStat{Laddr: psnet.Addr{IP: ip, Port: port}, Status: status, Pid: pid}
	}
	asked := map[int32]int{}
	usersOf := func(pid int32) []UserID {
		asked[pid]++
		if pid == 10 {
			return []UserID{me}
		}
		return nil
	}
	got := connSockets([]psnet.ConnectionStat{
		conn("127.0.0.1", 9222, "LISTEN", 10),
		conn("::", 9223, "LISTEN", 10),
		conn("127.0.0.1", 9224, "LISTEN", 20),
		conn("127.0.0.1", 50000, "ESTABLISHED", 10),
		conn("not an address", 9225, "LISTEN", 10),
	}, usersOf)
	want := []socket{
		{netip.MustParseAddr("127.0.0.1"), 9222, me},
		{netip.IPv6Unspecified(), 9223, me},
		{netip.MustParseAddr("127.0.0.1"), 9224, unknownOwner(20)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("connSockets = %v, want %v", got, want)
	}
	if asked[10] != 1 || asked[20] != 1 {
		t.Errorf("processes asked for their user %v times, want once each", asked)
	}
	if owners := listenerOwners(got); !owners[9222].is(me) || owners[9224].is(me) {
		t.Errorf("listenerOwners = %v, want 9222 the provider's, 9224 not", owners)
	}
}

// String shows a socket in a test's failure.
func (s socket) String() string { return fmt.Sprintf("%s:%d (%s)", s.addr, s.port, s.owner) }
