package provider

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"
)

// brokenPipe is stdout after the host closed its end.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// A host that goes away while the provider writes to it ends the session
// cleanly: a notification can always be on its way when it disconnects.
func TestServeEndsCleanlyWhenTheHostHasGone(t *testing.T) {
	stdin := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"0"}}}`+"\n"), blockingReader{})
	log := slog.New(slog.DiscardHandler)
	err := serve(context.Background(), Config{Command: Serve}, &fakeSource{}, stdin, brokenPipe{}, log)
	if err != nil {
		t.Fatalf("serve with the host gone: %v, want a clean end", err)
	}
}

// blockingReader never answers, like a host that is still connected but
// says nothing more.
type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }
