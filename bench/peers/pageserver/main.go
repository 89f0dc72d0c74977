// Command pageserver serves the bench's generated pages (bench.Handler:
// /p100.html, /p1k.html, /p10k.html, /p50k.html and the 1k page's
// /frame.html) on a loopback address, for bench/peers/run.sh; with -dir,
// the files under a directory instead (bench/peers/light.sh: the extracted
// documentation packages). It prints the base URL as the first line of its
// output and serves until it is killed.
//
//	pageserver [-addr 127.0.0.1:0] [-dir DIR]
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
	dir := flag.String("dir", "", "serve the files under this `directory` (symbolic links that lead out of it are not followed) instead of the generated pages")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("pageserver: -addr %s: %v", *addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("pageserver: -addr %s: serves on a loopback address only (127.0.0.1 or ::1)", *addr)
	}
	h := bench.Handler()
	if *dir != "" {
		// os.Root keeps every file, symbolic links included, inside dir: a
		// link to a system file (a package's jquery.js, say) is not found,
		// as it is not on a machine without that file.
		root, err := os.OpenRoot(*dir)
		if err != nil {
			log.Fatalf("pageserver: -dir: %v", err)
		}
		h = http.FileServer(http.FS(root.FS()))
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("pageserver: %v", err)
	}
	fmt.Fprintf(os.Stdout, "http://%s/\n", l.Addr())
	log.Fatal(http.Serve(l, h))
}
