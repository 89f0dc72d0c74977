package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/google/go-cmp/cmp"
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

// wantData checks an error's data: exactly the uri, the reason and, for
// an element that cannot be placed, why.
func wantData(t *testing.T, what string, werr *jsonrpc.Error, uri, reason, why string) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(werr.Data, &got); err != nil {
		t.Errorf("%s: error data %s: %v", what, werr.Data, err)
		return
	}
	want := map[string]any{"uri": uri, "reason": reason}
	if why != "" {
		want["why"] = why
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: error data (-want +got):\n%s", what, diff)
	}
}

// failure is a browser's failure that names its reason, as cdp.Failure
// does (the mcp package never imports cdp).
type failure struct{ reason, msg string }

func (f *failure) Error() string  { return f.msg }
func (f *failure) Reason() string { return f.reason }

// The browser's reasons, as the cdp package names them, and the two the
// provider package adds.
var browserReasons = []string{
	"browser-unreachable", "consent-pending", "consent-declined", "browser-restarting",
	"launch-failed", "bad-address", "read-failed",
}

// Every failed read: its code, its message's start, and its data (the
// uri, the reason, and for an element that cannot be placed, why).
func TestReadErrors(t *testing.T) {
	const notFound, internal = jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError
	const browserGone = "Chromium went away while the provider tried to locate the element."
	type test struct {
		uri      string
		noLocate bool // only without locate
		code     int64
		msg      string // the message's start
		reason   string
		why      string
	}
	tests := []test{
		// URIs that match nothing.
		{uri: "uicontext://nope", code: notFound, reason: "no-such-resource",
			msg: `resource not found: no resource matches "uicontext://nope"; this provider has uicontext://current, uicontext://current?scope=screen, uicontext://descriptor`},
		{uri: "uicontext://locate/", code: notFound, reason: "no-such-resource", msg: "resource not found: no resource matches"},
		{uri: "uicontext://locate/a/b", code: notFound, reason: "no-such-resource", msg: "resource not found: no resource matches"},
		{uri: "uicontext://locate/a?b", code: notFound, reason: "no-such-resource", msg: "resource not found: no resource matches"},
		{uri: "uicontext://current/", code: notFound, reason: "no-such-resource", msg: "resource not found: no resource matches"},
		{uri: "https://example.com/", code: notFound, reason: "no-such-resource", msg: "resource not found: no resource matches"},
		{uri: "", code: notFound, reason: "no-such-resource", msg: "resource not found: no resource matches"},
		{uri: "uicontext://locate/n1.5_AAAAAAAA", noLocate: true, code: notFound, reason: "no-such-resource",
			msg: `resource not found: no resource matches "uicontext://locate/n1.5_AAAAAAAA"; this provider has uicontext://current, uicontext://current?scope=screen, uicontext://descriptor`},
		// Ids not of the form of 5.2.
		{uri: "uicontext://locate/a%2Fb", code: notFound, reason: "malformed", msg: `resource not found: malformed element id "a/b"`},
		{uri: "uicontext://locate/a%zz", code: notFound, reason: "malformed", msg: `resource not found: malformed element id "a%zz"`},
		{uri: "uicontext://locate/a@b", code: notFound, reason: "malformed", msg: `resource not found: malformed element id "a@b"`},
		{uri: "uicontext://locate/%C3%A9", code: notFound, reason: "malformed", msg: `resource not found: malformed element id "é"`},
		{uri: "uicontext://locate/" + strings.Repeat("a", 129), code: notFound, reason: "malformed", msg: "resource not found: malformed element id"},
		// Ids the source rejects.
		{uri: "uicontext://locate/n9_AAAAAAAA", code: notFound, reason: "not-issued",
			msg: `resource not found: element id "n9_AAAAAAAA" was not issued by this run of the provider: read uicontext://current for the ids of this run`},
		{uri: "uicontext://locate/x_AAAAAAAA", code: notFound, reason: "malformed", msg: `resource not found: malformed element id "x_AAAAAAAA"`},
		{uri: "uicontext://locate/a0_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "application",
			msg: `resource not found: element "a0_AAAAAAAA" cannot be placed on screen: the Application is the browser itself and has no place on screen of its own`},
		{uri: "uicontext://locate/t1_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "tab",
			msg: `resource not found: element "t1_AAAAAAAA" cannot be placed on screen: a Tab has no place on screen of its own`},
		{uri: "uicontext://locate/l1_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "tab-list",
			msg: `resource not found: element "l1_AAAAAAAA" cannot be placed on screen: the tab strip is drawn by the browser`},
		{uri: "uicontext://locate/x1.2_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "no-geometry",
			msg: `resource not found: element "x1.2_AAAAAAAA" cannot be placed on screen: it has no box of its own`},
		{uri: "uicontext://locate/x1.3_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "no-geometry",
			msg: `resource not found: element "x1.3_AAAAAAAA" cannot be placed on screen: it has no box of its own`},
		{uri: "uicontext://locate/j8_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "dialog",
			msg: `resource not found: element "j8_AAAAAAAA" cannot be placed on screen: a JavaScript dialog is drawn by the browser`},
		{uri: "uicontext://locate/d2_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "crashed",
			msg: `resource not found: element "d2_AAAAAAAA" cannot be placed on screen: its page crashed`},
		{uri: "uicontext://locate/w4_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "window-unknown",
			msg: `resource not found: element "w4_AAAAAAAA" cannot be placed on screen: the browser did not say which window its tabs are in`},
		{uri: "uicontext://locate/n3.1_AAAAAAAA", code: notFound, reason: "cannot-be-placed", why: "page-not-answering",
			msg: `resource not found: element "n3.1_AAAAAAAA" cannot be placed on screen: its page cannot be asked now (the page is not responding); try again once it answers`},
		// Failures of the browser.
		{uri: "uicontext://locate/n1.8_AAAAAAAA", code: internal, reason: "browser-restarting", msg: browserGone},
		{uri: "uicontext://locate/n1.10_AAAAAAAA", code: internal, reason: "read-failed", msg: "not a reason"},
		{uri: "uicontext://descriptor", code: internal, reason: "read-failed", msg: "no product yet"},
	}
	for _, reason := range browserReasons {
		tests = append(tests, test{uri: "uicontext://current", code: internal, reason: reason, msg: "The browser failed: " + reason})
	}
	forEach(t, func(t *testing.T, locate bool, version string) {
		src := newFake()
		src.locateErrs = map[string]error{
			"a0_AAAAAAAA":    mapping.CannotPlace(mapping.PlaceApplication, nil),
			"t1_AAAAAAAA":    fmt.Errorf("locate: %w", mapping.CannotPlace(mapping.PlaceTab, nil)),
			"l1_AAAAAAAA":    mapping.CannotPlace(mapping.PlaceTabList, nil),
			"x1.2_AAAAAAAA":  mapping.CannotPlace(mapping.PlaceNoGeometry, nil),
			"x1.3_AAAAAAAA":  mapping.ErrCannotPlace, // no why: no geometry
			"j8_AAAAAAAA":    mapping.CannotPlace(mapping.PlaceDialog, nil),
			"d2_AAAAAAAA":    mapping.CannotPlace(mapping.PlaceCrashed, nil),
			"w4_AAAAAAAA":    mapping.CannotPlace(mapping.PlaceWindowUnknown, nil),
			"n3.1_AAAAAAAA":  mapping.CannotPlace(mapping.PlaceNotAnswering, errors.New("the page is not responding")),
			"x_AAAAAAAA":     mapping.ErrMalformedID,
			"n1.8_AAAAAAAA":  fmt.Errorf("locate: %w", &failure{"browser-restarting", browserGone}),
			"n1.10_AAAAAAAA": errors.New("not a reason"),
		}
		src.appErr = errors.New("no product yet") // no reason: read-failed
		cs := connect(t, src, Options{Locate: locate}, version)
		for _, tt := range tests {
			if tt.noLocate && locate {
				continue
			}
			code, msg, reason, why := tt.code, tt.msg, tt.reason, tt.why
			if strings.HasPrefix(msg, "The browser failed: ") {
				src.setCurrentErr(&failure{reason, msg})
			}
			if !locate && !tt.noLocate && strings.HasPrefix(tt.uri, "uicontext://locate/") {
				// 7.3: without locate, every locate URI is unknown.
				code, msg, reason, why = notFound, "resource not found: no resource matches", "no-such-resource", ""
			}
			werr := wantError(t, cs, tt.uri, code, "")
			if !strings.HasPrefix(werr.Message, msg) {
				t.Errorf("read %s: message %q, want it to start %q", tt.uri, werr.Message, msg)
			}
			if code == notFound && !strings.HasPrefix(werr.Message, "resource not found: ") {
				t.Errorf("read %s: message %q, want the prefix of 7.2", tt.uri, werr.Message)
			}
			wantData(t, "read "+tt.uri, werr, tt.uri, reason, why)
			src.setCurrentErr(nil)
			readCurrent(t, cs) // the server keeps serving
		}
	})
}

// The resource-not-found code is the SDK's invalid params, -32602,
// whatever MCPGODEBUG says of the deprecated CodeResourceNotFound: the
// test runs again in a process of its own with the setting that makes
// that -32002.
func TestNotFoundCode(t *testing.T) {
	cs := connect(t, newFake(), Options{Locate: true}, "")
	wantError(t, cs, "uicontext://nope", -32602, "resource not found: ")
	wantError(t, cs, "uicontext://locate/a@b", -32602, "resource not found: ")
	if os.Getenv("MCPGODEBUG") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNotFoundCode$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCPGODEBUG=customresnotfounderrcode=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("with MCPGODEBUG=customresnotfounderrcode=1: %v\n%s", err, out)
	}
}

func TestNotFoundData(t *testing.T) {
	cs := connect(t, newFake(), Options{Locate: true}, "")
	const uri = "uicontext://locate/\x00\"é"
	_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("read: %v, want a JSON-RPC error", err)
	}
	if want := `{"uri":"uicontext://locate/\u0000\"é","reason":"malformed"}`; string(werr.Data) != want {
		t.Errorf("error data = %s, want %s", werr.Data, want)
	}
}
