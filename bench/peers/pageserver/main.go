// Command pageserver serves the bench's generated pages (bench.Handler:
// /p100.html, /p1k.html, /p10k.html, /p50k.html and the 1k page's
// /frame.html) on a loopback address, for bench/peers/run.sh. It prints
// the base URL as the first line of its output and serves until it is
// killed.
//
//	pageserver [-addr 127.0.0.1:0]
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/cdpprovider/cdpprovider/bench"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback `address` to listen on; port 0 picks a free one")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("pageserver: -addr %s: %v", *addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("pageserver: -addr %s: serves on a loopback address only (127.0.0.1 or ::1)", *addr)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("pageserver: %v", err)
	}
	fmt.Fprintf(os.Stdout, "http://%s/\n", l.Addr())
	log.Fatal(http.Serve(l, bench.Handler()))
}
