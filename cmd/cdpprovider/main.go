// Command cdpprovider reports what a person sees in a Chromium-based
// browser to MCP hosts: the UI context protocol's current, locate and
// descriptor, read over the Chrome DevTools Protocol.
//
// Usage:
//
//	cdpprovider serve   --connect http://127.0.0.1:9222
//	cdpprovider serve   --launch [--headed] [--chrome PATH] [URL ...]
//	cdpprovider serve   --http 127.0.0.1:8377 [--token-file FILE] [--tools]
//	cdpprovider current --launch [--json] [--depth N] [--png FILE]
//	cdpprovider watch   --launch [--json] [--depth N] [--png FILE]
//	cdpprovider find    TEXT [--role ROLE] [--regex] [--limit N] [--json]
//	cdpprovider version
//
// Run "cdpprovider help COMMAND" for a command's flags. This package only
// turns the command line into a provider.Config; provider.Run does the
// rest.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cdpprovider/cdpprovider/provider"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		os.Exit(2) // parseArgs has printed the error and the usage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = provider.Run(ctx, cfg, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cdpprovider: %v\n", err)
	}
	os.Exit(exitStatus(cfg.Command, err))
}

// exitStatus is the program's exit status after a command ended with
// err: 0 when it did what was asked, 1 when it failed. find exits as grep
// does: 1 when no element matches (provider.ErrNoMatch), 2 when it could
// not look (the browser could not be read), so that a script can tell the
// two apart.
func exitStatus(command string, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, provider.ErrNoMatch):
		return 1
	case command == provider.Find:
		return 2
	}
	return 1
}
