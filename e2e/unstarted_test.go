package e2e

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// serve --launch --headed where there is no display: the host still
// gets its MCP server (it initializes and lists the resources), every
// read answers an internal error saying there is no display, and the
// provider keeps running (it tries again on a later read).
func TestServeLaunchWithoutADisplay(t *testing.T) {
	needEnv(t)
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			environ = append(environ, kv)
		}
	}
	p := startProviderCmd(t, []string{"serve", "--launch", "--headed", "--chrome", env.chromePath}, environ, nil)
	if _, err := p.session.ListResources(t.Context(), nil); err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	for _, uri := range []string{currentURI, descriptorURI} {
		p.wantFailure(t, uri, "no display (DISPLAY is not set)")
	}
	if !p.running() {
		t.Fatalf("the provider exited; stderr:\n%s", p.stderr.String())
	}
	if s := p.stderr.String(); !strings.Contains(s, "no display") {
		t.Errorf("the cause is not on stderr:\n%s", s)
	}
}

// serve with a browser address it cannot use: MCP starts, and every read
// says what is wrong with the address.
func TestServeBadAddress(t *testing.T) {
	needEnv(t)
	p := startProvider(t, "ftp://x")
	p.wantFailure(t, currentURI, `scheme "ftp"`)
	p.wantFailure(t, descriptorURI, `scheme "ftp"`)
	if !p.running() {
		t.Fatalf("the provider exited; stderr:\n%s", p.stderr.String())
	}
}

// wantFailure reads uri and wants the internal error of a read that
// failed for the browser's sake (7.2), its message saying want.
func (p *provider) wantFailure(t testing.TB, uri, want string) {
	t.Helper()
	_, err := p.readRaw(t, uri)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInternalError {
		t.Fatalf("read %s: %v, want an internal error (-32603)", uri, err)
	}
	if !strings.Contains(we.Message, want) {
		t.Errorf("read %s: %q, want it to say %q", uri, we.Message, want)
	}
	t.Logf("read %s: %d %s", uri, we.Code, we.Message)
}
