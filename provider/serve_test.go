package provider

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
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

// initialize is a host's first message.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"0"}}}` + "\n"

// serve on the system's own pipes, as a host starts it: it ends cleanly
// when its stdin closes, when ctx ends (Ctrl-C), and when the host has
// closed its stdout, with the errors this system gives for each (on
// Windows a closed pipe reads as ERROR_BROKEN_PIPE and is written as
// ERROR_NO_DATA).
func TestServeOnPipes(t *testing.T) {
	pipe := func() (r, w *os.File) {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r, w
	}
	// answered reads the host's end of stdout until the answer to
	// initialize.
	answered := func(r *os.File) error {
		line, err := bufio.NewReader(r).ReadString('\n')
		if err != nil {
			return err
		}
		if !strings.Contains(line, `"id":1,"result"`) {
			return fmt.Errorf("the first line is not initialize's answer: %s", line)
		}
		return nil
	}
	log := slog.New(slog.DiscardHandler)
	cfg := Config{Command: Serve}

	t.Run("stdin closes", func(t *testing.T) {
		inR, inW := pipe()
		outR, outW := pipe()
		done := make(chan error, 1)
		go func() { done <- serve(context.Background(), cfg, &fakeSource{}, inR, outW, log) }()
		io.WriteString(inW, initialize)
		if err := answered(outR); err != nil {
			t.Fatal(err)
		}
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("serve after its stdin closed = %v, want nil", err)
		}
	})
	t.Run("Ctrl-C", func(t *testing.T) {
		inR, inW := pipe()
		outR, outW := pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- serve(ctx, cfg, &fakeSource{}, inR, outW, log) }()
		io.WriteString(inW, initialize)
		if err := answered(outR); err != nil {
			t.Fatal(err)
		}
		cancel() // what main's signal.NotifyContext does on os.Interrupt
		if err := <-done; err != nil {
			t.Errorf("serve after Ctrl-C = %v, want nil", err)
		}
	})
	t.Run("the host closed stdout", func(t *testing.T) {
		inR, inW := pipe()
		outR, outW := pipe()
		outR.Close()
		done := make(chan error, 1)
		go func() { done <- serve(context.Background(), cfg, &fakeSource{}, inR, outW, log) }()
		io.WriteString(inW, initialize)
		if err := <-done; err != nil {
			t.Errorf("serve writing to a closed pipe = %v, want nil", err)
		}
	})
}
