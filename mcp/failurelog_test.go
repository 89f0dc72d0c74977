package mcp

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// The log says each failure of the browser once: the same failure again
// (the person not yet at the Allow dialog, a browser still down) is
// logged at debug level, and a failure after a good read is news again.
func TestFailuresAreLoggedOnce(t *testing.T) {
	var log syncbuf.Buffer
	src := newFake()
	src.currentErr = errors.New("Chromium is asking whether to allow remote debugging: click Allow")
	cs := connect(t, src, Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))}, "")
	count := func() int { return strings.Count(log.String(), "is asking whether") }

	for range 3 {
		wantError(t, cs, CurrentURI, jsonrpc.CodeInternalError, "click Allow")
	}
	if n := count(); n != 1 {
		t.Fatalf("three reads failing alike: the log says it %d times, want once:\n%s", n, log.String())
	}
	src.mu.Lock()
	src.currentErr = errors.New("the browser went away")
	src.mu.Unlock()
	wantError(t, cs, CurrentURI, jsonrpc.CodeInternalError, "went away")
	if !strings.Contains(log.String(), "went away") {
		t.Errorf("a new failure is not logged:\n%s", log.String())
	}
	src.mu.Lock()
	src.currentErr = nil
	src.mu.Unlock()
	readCurrent(t, cs)
	src.mu.Lock()
	src.currentErr = errors.New("the browser went away")
	src.mu.Unlock()
	wantError(t, cs, CurrentURI, jsonrpc.CodeInternalError, "went away")
	if n := strings.Count(log.String(), "went away"); n != 2 {
		t.Errorf("the same failure after a good read: logged %d times in all, want 2:\n%s", n, log.String())
	}
}
