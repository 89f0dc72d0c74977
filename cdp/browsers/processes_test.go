package browsers

import (
	"net"
	"os"
	"runtime"
	"testing"
)

// The real /proc/net/tcp and tcp6 are read as the fake ones of the tests
// are written: a socket of this process on 127.0.0.1, and one on every
// IPv6 address (which takes 127.0.0.1's connections too), are the
// provider's user's.
func TestListenersOfThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
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
		if uid, ok := owners[p]; !ok || uid != os.Getuid() {
			t.Errorf("port %d listened on by this process: owner %d (%v), want %d", p, uid, ok, os.Getuid())
		}
	}
}
