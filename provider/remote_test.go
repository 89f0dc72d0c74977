package provider

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/cdp"
)

// current, find and at with --server read through a provider serving
// over HTTP with --tools: the ids one command prints name the same
// elements in the next (--root), and the tools' errors come back as the
// command's.
func TestThroughServer(t *testing.T) {
	token := writeToken(t, "tok-77\n")
	r := startHTTP(t, Config{Command: Serve, Connect: "127.0.0.1:9222", HTTP: "127.0.0.1:0", TokenFile: token, Tools: true})
	through := func(cfg Config) (string, error) {
		t.Helper()
		cfg.Server, cfg.TokenFile = r.url, token
		var stdout, stderr bytes.Buffer
		// No browser of its own: a source opened would fail the test.
		err := run(context.Background(), cfg, nil, &stdout, &stderr, func(cdp.Options) (source, error) {
			t.Errorf("%s --server opened a browser source", cfg.Command)
			return nil, errors.New("no browser here")
		})
		return stdout.String(), err
	}

	// find prints the Window's line with the serving run's id...
	out, err := through(Config{Command: Find, Text: "harbor"})
	if err != nil || !strings.HasPrefix(out, `Window Harbor Books: checkout #w1 in: Application Chromium`) {
		t.Fatalf("find harbor --server = %q, %v; want the Window's line with its id", out, err)
	}
	// ...which current --root reads around.
	out, err = through(Config{Command: Current, Root: "w1"})
	if want := "in: Application Chromium\nWindow Harbor Books: checkout #w1\n"; err != nil || out != want {
		t.Errorf("current --root w1 --server = %q, %v; want %q", out, err, want)
	}
	out, err = through(Config{Command: Current, Root: "w1", JSON: true})
	if want := `{"id":"w1","role":"Window","title":"Harbor Books: checkout"}` + "\n"; err != nil || out != want {
		t.Errorf("current --root w1 --json --server = %q, %v; want %q", out, err, want)
	}
	out, err = through(Config{Command: Current, JSON: true, Depth: new(0)})
	if err != nil || !strings.HasPrefix(out, `{"protocol":"0.2.0"`) || !strings.Contains(out, `"omitted":1`) || !strings.HasSuffix(out, "}\n") {
		t.Errorf("current --depth 0 --json --server = %q, %v; want the answer cut below the Application", out, err)
	}
	out, err = through(Config{Command: Find, Text: "harbor", JSON: true})
	if err != nil || !strings.HasPrefix(out, `{"matches":[{"id":"w1",`) || !strings.HasSuffix(out, `"more":0}`+"\n") {
		t.Errorf("find harbor --json --server = %q, %v; want the matches' JSON", out, err)
	}
	out, err = through(Config{Command: At, Point: []float64{5, 5}})
	if err != nil || !strings.Contains(out, `the frame of Window Harbor Books: checkout #w1`) {
		t.Errorf("at 5 5 --server = %q, %v; want the Window's frame", out, err)
	}
	out, err = through(Config{Command: At, Point: []float64{-5, 5}, JSON: true})
	if err != nil || !strings.Contains(out, `"where":"none"`) {
		t.Errorf("at -5 5 --json --server = %q, %v; want no window", out, err)
	}

	// No match: nothing printed, ErrNoMatch (exit status 1).
	if out, err = through(Config{Command: Find, Text: "nowhere"}); !errors.Is(err, ErrNoMatch) || out != "" {
		t.Errorf("find nowhere --server = %q, %v; want nothing and ErrNoMatch", out, err)
	}
	// An id that is not in what the user sees: the tool's error.
	if out, err = through(Config{Command: Current, Root: "w9"}); err == nil || !strings.Contains(err.Error(), "gone: element \"w9\"") ||
		!strings.Contains(err.Error(), "(find --server "+r.url+" prints the ids of that provider's run now)") || out != "" {
		t.Errorf("current --root w9 --server = %q, %v; want the gone error", out, err)
	}
	// A wrong token gets no session.
	bad := writeToken(t, "wrong")
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), Config{Command: Current, Server: r.url, TokenFile: bad}, nil, &stdout, &stderr, opener(&fakeSource{}))
	if err == nil || !strings.Contains(err.Error(), "no MCP session") || stdout.Len() > 0 {
		t.Errorf("current --server with a wrong token = %q, %v; want no session", stdout.String(), err)
	}
}

// A provider serving without --tools offers none: the command says to
// start it with --tools.
func TestThroughServerWithoutTools(t *testing.T) {
	token := writeToken(t, "tok-78\n")
	r := startHTTP(t, Config{Command: Serve, Connect: "127.0.0.1:9222", HTTP: "127.0.0.1:0", TokenFile: token})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), Config{Command: Find, Text: "a", Server: r.url, TokenFile: token}, nil, &stdout, &stderr, opener(&fakeSource{}))
	if err == nil || !strings.Contains(err.Error(), "offers no tool ui_find: start it with serve --http … --tools") {
		t.Errorf("find --server of a provider without tools = %v; want the advice to start it with --tools", err)
	}
}
