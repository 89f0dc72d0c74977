package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// wantError reads uri, checks that it fails with a JSON-RPC error of the
// code whose message contains msg, and returns the error.
func wantError(t *testing.T, cs *sdk.ClientSession, uri string, code int64, msg string) *jsonrpc.Error {
	t.Helper()
	_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("read %s: error %v, want a JSON-RPC error", uri, err)
	}
	if werr.Code != code || !strings.Contains(werr.Message, msg) {
		t.Errorf("read %s: error %d %q, want %d containing %q", uri, werr.Code, werr.Message, code, msg)
	}
	return werr
}

func TestReadErrors(t *testing.T) {
	notFound := sdk.CodeResourceNotFound
	const browserGone = "the browser went away mid-read: restart it with --remote-debugging-port=9222"
	tests := []struct {
		uri      string
		noLocate bool // only without locate
		code     int64
		msg      string
	}{
		// URIs that match nothing.
		{uri: "uicontext://nope", code: notFound, msg: `no resource matches "uicontext://nope"`},
		{uri: "uicontext://locate/", code: notFound, msg: "no resource matches"},
		{uri: "uicontext://locate/a/b", code: notFound, msg: "no resource matches"},
		{uri: "uicontext://locate/a?b", code: notFound, msg: "no resource matches"},
		{uri: "uicontext://current/", code: notFound, msg: "no resource matches"},
		{uri: "https://example.com/", code: notFound, msg: "no resource matches"},
		{uri: "", code: notFound, msg: "no resource matches"},
		{uri: "uicontext://locate/n1.5_AAAAAAAA", noLocate: true, code: notFound,
			msg: `no resource matches "uicontext://locate/n1.5_AAAAAAAA"; this provider has uicontext://current, uicontext://descriptor`},
		// Ids not of the form of 5.2.
		{uri: "uicontext://locate/a%2Fb", code: notFound, msg: `malformed element id "a/b"`},
		{uri: "uicontext://locate/a%zz", code: notFound, msg: `malformed element id "a%zz"`},
		{uri: "uicontext://locate/a@b", code: notFound, msg: `malformed element id "a@b"`},
		{uri: "uicontext://locate/%C3%A9", code: notFound, msg: `malformed element id "é"`},
		{uri: "uicontext://locate/" + strings.Repeat("a", 129), code: notFound, msg: "malformed element id"},
		// Ids the source rejects.
		{uri: "uicontext://locate/n9_AAAAAAAA", code: notFound,
			msg: `element id "n9_AAAAAAAA" was not issued by this run of the provider`},
		{uri: "uicontext://locate/t1_AAAAAAAA", code: notFound, msg: `element "t1_AAAAAAAA" cannot be placed on screen`},
		{uri: "uicontext://locate/x_AAAAAAAA", code: notFound, msg: `malformed element id "x_AAAAAAAA"`},
		// Failures of the browser.
		{uri: "uicontext://locate/n1.8_AAAAAAAA", code: jsonrpc.CodeInternalError, msg: browserGone},
		{uri: "uicontext://descriptor", code: jsonrpc.CodeInternalError, msg: "no product yet"},
	}
	forEach(t, func(t *testing.T, locate bool, version string) {
		src := newFake()
		src.locateErrs = map[string]error{
			"t1_AAAAAAAA":   fmt.Errorf("locate: %w", mapping.ErrCannotPlace),
			"x_AAAAAAAA":    mapping.ErrMalformedID,
			"n1.8_AAAAAAAA": errors.New(browserGone),
		}
		src.appErr = errors.New("no product yet")
		cs := connect(t, src, Options{Locate: locate}, version)
		for _, tt := range tests {
			if tt.noLocate && locate {
				continue
			}
			code, msg := tt.code, tt.msg
			if !locate && !tt.noLocate && strings.HasPrefix(tt.uri, "uicontext://locate/") {
				// 7.3: without locate, every locate URI is unknown.
				code, msg = notFound, "no resource matches"
			}
			wantError(t, cs, tt.uri, code, msg)
			readCurrent(t, cs) // the server keeps serving
		}
	})
}

func TestNotFoundData(t *testing.T) {
	cs := connect(t, newFake(), Options{Locate: true}, "")
	const uri = "uicontext://locate/\x00\"é"
	_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("read: %v, want a JSON-RPC error", err)
	}
	if want := `{"uri":"uicontext://locate/\u0000\"é"}`; string(werr.Data) != want {
		t.Errorf("error data = %s, want %s", werr.Data, want)
	}
}
