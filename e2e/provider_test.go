package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// The names of section 7.1.
const (
	currentURI    = "uicontext://current"
	descriptorURI = "uicontext://descriptor"
	locatePrefix  = "uicontext://locate/"
	locateTmpl    = "uicontext://locate/{id}"
	extensionName = "uicontext/provider"
)

// provider is one running cdpprovider process and the MCP client session
// reading it over its stdin and stdout.
type provider struct {
	cmd     *exec.Cmd
	session *mcp.ClientSession
	stderr  *syncbuf.Buffer
	stdout  *protocolChecker
	exited  chan struct{}
}

// launchProvider starts `cdpprovider serve --connect URL args...` and
// initializes an MCP session with it.
func launchProvider(connect string, args ...string) (*provider, error) {
	return launchProviderWith(connect, nil, args...)
}

// launchProviderWith is launchProvider with the MCP client's options (its
// notification handlers).
func launchProviderWith(connect string, copts *mcp.ClientOptions, args ...string) (*provider, error) {
	return launchProviderCmd(append([]string{"serve", "--connect", connect}, args...), nil, copts)
}

// launchProviderCmd starts `cdpprovider ARGV...` (a serve command) in the
// environment environ (nil: the test's) and initializes an MCP session
// with it.
func launchProviderCmd(argv, environ []string, copts *mcp.ClientOptions) (*provider, error) {
	if environ == nil {
		environ = os.Environ()
	}
	cmd := exec.Command(env.bin, argv...)
	setProcAttr(cmd)
	p := &provider{cmd: cmd, stderr: &syncbuf.Buffer{}, stdout: &protocolChecker{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.Env = environ
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", env.bin, err)
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpprovider-e2e", Version: "0"}, copts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.IOTransport{Reader: &checkedReader{r: stdout, c: p.stdout}, Writer: stdin}
	session, err := client.Connect(ctx, tr, nil)
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("initialize over stdio with %s %s: %w\nstderr:\n%s", env.bin, strings.Join(argv, " "), err, p.stderr.String())
	}
	p.session = session
	return p, nil
}

// startProvider starts a provider for this test alone; it is stopped, and
// its stderr logged, when the test ends.
func startProvider(t testing.TB, connect string, args ...string) *provider {
	t.Helper()
	return startProviderWith(t, connect, nil, args...)
}

// startProviderWith is startProvider with the MCP client's options.
func startProviderWith(t testing.TB, connect string, copts *mcp.ClientOptions, args ...string) *provider {
	t.Helper()
	return startProviderCmd(t, append([]string{"serve", "--connect", connect}, args...), nil, copts)
}

// startProviderCmd starts `cdpprovider ARGV...` (a serve command) for this
// test alone, in the environment environ (nil: the test's); it is
// stopped, and its stderr logged, when the test ends.
func startProviderCmd(t testing.TB, argv, environ []string, copts *mcp.ClientOptions) *provider {
	t.Helper()
	needEnv(t)
	p, err := launchProviderCmd(argv, environ, copts)
	if err != nil {
		t.Fatal(err)
	}
	stopWithTest(t, p)
	return p
}

// stopWithTest stops the provider, and logs its stderr, when the test
// ends.
func stopWithTest(t testing.TB, p *provider) {
	t.Helper()
	t.Cleanup(func() {
		if err := p.close(); err != nil {
			t.Errorf("provider did not stop cleanly: %v", err)
		}
		t.Logf("provider stderr:\n%s", p.stderr.String())
		if bad := p.stdout.violations(); len(bad) > 0 {
			t.Errorf("provider wrote non-protocol output on stdout:\n%s", strings.Join(bad, "\n"))
		}
	})
}

var shared struct {
	sync.Mutex
	p   *provider
	err error
}

// sharedProvider is one provider on the shared browser for the tests whose
// state does not interfere. The part of its stderr written during the test
// goes to the test's log.
func sharedProvider(t testing.TB) *provider {
	t.Helper()
	needEnv(t)
	shared.Lock()
	defer shared.Unlock()
	if shared.p == nil && shared.err == nil {
		shared.p, shared.err = launchProvider(env.browser.httpURL())
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	p := shared.p
	from := p.stderr.Len()
	nbad := len(p.stdout.violations())
	t.Cleanup(func() {
		t.Logf("shared provider stderr during this test:\n%s", p.stderr.Since(from))
		if bad := p.stdout.violations(); len(bad) > nbad {
			t.Errorf("provider wrote non-protocol output on stdout:\n%s", strings.Join(bad[nbad:], "\n"))
		}
	})
	return p
}

func closeSharedProvider() {
	shared.Lock()
	defer shared.Unlock()
	if shared.p != nil {
		shared.p.close()
		shared.p = nil
	}
}

// close ends the session (closing the provider's stdin) and waits for the
// process to exit, killing it after 5 seconds.
func (p *provider) close() error {
	if p.session != nil {
		p.session.Close()
	}
	select {
	case <-p.exited:
		if st := p.cmd.ProcessState; st != nil && !st.Success() {
			return fmt.Errorf("exit status after stdin closed: %v", st)
		}
		return nil
	case <-time.After(5 * time.Second):
		p.kill()
		return errors.New("still running 5s after its stdin closed; killed")
	}
}

func (p *provider) kill() {
	killGroup(p.cmd)
	<-p.exited
}

// running reports whether the process is still alive.
func (p *provider) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// readRaw reads one resource and checks the shape of 7.1: one content
// item, application/json, the JSON in text.
func (p *provider) readRaw(t testing.TB, uri string) ([]byte, error) {
	t.Helper()
	return readSession(t, p.session, uri)
}

// readSession is readRaw on any client session (one over HTTP, say).
func readSession(t testing.TB, session *mcp.ClientSession, uri string) ([]byte, error) {
	t.Helper()
	// Generous: a 50,000-element answer takes tens of seconds to decode
	// under -race on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d content items, want 1", uri, len(res.Contents))
	}
	c := res.Contents[0]
	if c.MIMEType != "application/json" {
		t.Errorf("read %s: mimeType %q, want application/json", uri, c.MIMEType)
	}
	if c.URI != uri {
		t.Errorf("read %s: content uri %q, want the uri read", uri, c.URI)
	}
	if c.Text == "" {
		t.Fatalf("read %s: empty text (blob %d bytes)", uri, len(c.Blob))
	}
	if !json.Valid([]byte(c.Text)) {
		t.Fatalf("read %s: text is not JSON: %.300s", uri, c.Text)
	}
	return []byte(c.Text), nil
}

// current reads uicontext://current and checks it with the conformance
// checker (schema and the rules of section 5).
func (p *provider) current(t testing.TB) *answer {
	t.Helper()
	raw, err := p.readRaw(t, currentURI)
	if err != nil {
		t.Fatalf("read %s: %v", currentURI, err)
	}
	return &answer{Current: checkCurrent(t, raw), raw: raw}
}

// locate reads the location of id and checks it.
func (p *provider) locate(t testing.TB, id string) *location {
	t.Helper()
	uri := locatePrefix + id
	raw, err := p.readRaw(t, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return &location{Location: checkLocation(t, raw), raw: raw}
}

// descriptor reads uicontext://descriptor and checks it.
func (p *provider) descriptor(t testing.TB) *descriptorAnswer {
	t.Helper()
	raw, err := p.readRaw(t, descriptorURI)
	if err != nil {
		t.Fatalf("read %s: %v", descriptorURI, err)
	}
	return &descriptorAnswer{Descriptor: checkDescriptor(t, raw), raw: raw}
}

// wantNotFound reads uri and wants MCP's resource-not-found error (7.2).
func (p *provider) wantNotFound(t testing.TB, uri, why string) {
	t.Helper()
	_, err := p.readRaw(t, uri)
	if err == nil {
		t.Errorf("read %s (%s): succeeded, want resource-not-found error", uri, why)
		return
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Errorf("read %s (%s): error %v (%T), want a JSON-RPC error", uri, why, err, err)
		return
	}
	// Resource not found is -32602 (jsonrpc.CodeInvalidParams, as go-sdk
	// v1.8.0 defines it), whatever MCPGODEBUG says of the SDK's own
	// deprecated CodeResourceNotFound; the message has the prefix of 7.2
	// and the data a reason.
	if we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("read %s (%s): error code %d (%q), want resource not found (%d)", uri, why, we.Code, we.Message, jsonrpc.CodeInvalidParams)
	}
	if !strings.HasPrefix(we.Message, "resource not found: ") {
		t.Errorf("read %s (%s): message %q, want the prefix \"resource not found: \"", uri, why, we.Message)
	}
	var data struct{ URI, Reason string }
	if err := json.Unmarshal(we.Data, &data); err != nil || data.URI != uri || data.Reason == "" {
		t.Errorf("read %s (%s): data %s, want the uri and a reason", uri, why, we.Data)
	}
	t.Logf("read %s (%s): %d %s %s", uri, why, we.Code, we.Message, we.Data)
}

// wantServing checks that the provider still answers current.
func (p *provider) wantServing(t testing.TB, after string) {
	t.Helper()
	if !p.running() {
		t.Fatalf("provider exited after %s; stderr:\n%s", after, p.stderr.String())
	}
	if _, err := p.readRaw(t, currentURI); err != nil {
		t.Fatalf("read %s after %s: %v", currentURI, after, err)
	}
}

// protocolChecker records every line of the provider's stdout that is not
// a JSON-RPC 2.0 message.
type protocolChecker struct {
	mu      sync.Mutex
	partial []byte
	bad     []string
}

func (c *protocolChecker) feed(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			return
		}
		line := bytes.TrimSpace(c.partial[:i])
		c.partial = c.partial[i+1:]
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
			c.bad = append(c.bad, fmt.Sprintf("%.200q", line))
		}
	}
}

func (c *protocolChecker) violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bad...)
}

// checkedReader passes the provider's stdout to the MCP client and to a
// protocolChecker.
type checkedReader struct {
	r io.ReadCloser
	c *protocolChecker
}

func (r *checkedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.c.feed(p[:n])
	}
	return n, err
}

func (r *checkedReader) Close() error { return r.r.Close() }
