package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/conformance"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Point 1: initialize declares the extension of section 10;
// resources/list has current and descriptor; resources/templates/list has
// locate; there are no tools.
func TestInitializeDeclaresExtensionAndResources(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	ir := p.session.InitializeResult()
	if ir == nil || ir.Capabilities == nil {
		t.Fatalf("initialize result has no capabilities: %s", dump(ir))
	}
	caps := ir.Capabilities
	wantExt := map[string]any{
		"protocol":   "0.2.0",
		"operations": []any{"current", "locate"},
		"descriptor": descriptorURI,
	}
	if diff := cmp.Diff(wantExt, asJSON(t, caps.Extensions[extensionName])); diff != "" {
		t.Errorf("capabilities.extensions[%q] (-want +got):\n%s\nall capabilities: %s", extensionName, diff, dump(caps))
	}
	if caps.Resources == nil {
		t.Errorf("capabilities.resources missing: %s", dump(caps))
	}
	if caps.Tools != nil {
		t.Errorf("capabilities.tools = %s, want none: the provider offers no tools", dump(caps.Tools))
	}

	res, err := p.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	got := map[string]*mcp.Resource{}
	for _, r := range res.Resources {
		got[r.URI] = r
	}
	for uri, name := range map[string]string{currentURI: "current", currentURI + "?scope=screen": "screen", descriptorURI: "descriptor"} {
		r := got[uri]
		if r == nil {
			t.Errorf("resources/list lacks %s; got %s", uri, dump(res.Resources))
			continue
		}
		if r.Name != name {
			t.Errorf("resource %s: name %q, want %q", uri, r.Name, name)
		}
		if r.MIMEType != "application/json" {
			t.Errorf("resource %s: mimeType %q, want application/json", uri, r.MIMEType)
		}
	}
	if len(res.Resources) != 3 {
		t.Errorf("resources/list has %d resources, want exactly current, its screen and descriptor: %s", len(res.Resources), dump(res.Resources))
	}

	tmpls, err := p.session.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	if len(tmpls.ResourceTemplates) != 1 {
		t.Fatalf("resources/templates/list has %d templates, want exactly locate: %s", len(tmpls.ResourceTemplates), dump(tmpls.ResourceTemplates))
	}
	if rt := tmpls.ResourceTemplates[0]; rt.URITemplate != locateTmpl || rt.Name != "locate" || rt.MIMEType != "application/json" {
		t.Errorf("template = {uriTemplate %q name %q mimeType %q}, want {%q %q %q}", rt.URITemplate, rt.Name, rt.MIMEType, locateTmpl, "locate", "application/json")
	}

	// Asking for tools anyway: the list answers, empty.
	if tools, err := p.session.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list: %v, want an empty list", err)
	} else if len(tools.Tools) != 0 {
		t.Errorf("tools/list = %s, want no tools", dump(tools.Tools))
	}
}

// asJSON round-trips v through JSON so it compares as plain maps and slices.
func asJSON(t testing.TB, v any) any {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Point 2: current has exactly protocol, instance and root; the instance
// is the same across reads and new in a new run; the schema rejects a
// fourth field and an unknown role.
func TestCurrentHasExactlyThreeFields(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	openTab(t, env.rootCtx, env.pageA+"/plain.html")

	a := p.current(t)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(a.raw, &top); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"instance", "protocol", "root"}, keys); diff != "" {
		t.Errorf("top-level fields of current (-want +got):\n%s", diff)
	}
	if a.Protocol != "0.2.0" {
		t.Errorf("protocol = %q, want 0.2.0", a.Protocol)
	}
	if a.Root.Role != "Application" {
		t.Errorf("root role = %q, want Application", a.Root.Role)
	}
	if a.Root.Title == "" {
		t.Errorf("root has no title; want the browser's name")
	}
	if len(a.Instance) < 32 {
		t.Errorf("instance %q is too short to hold 122 random bits", a.Instance)
	}
	if b := p.current(t); b.Instance != a.Instance {
		t.Errorf("instance changed between two reads of one run: %q then %q", a.Instance, b.Instance)
	}
	other := startProvider(t, env.browser.httpURL())
	if c := other.current(t); c.Instance == a.Instance {
		t.Errorf("a second run of the provider has the same instance %q", c.Instance)
	}
	if bytes.Contains(a.raw, []byte(`""`)) {
		t.Errorf("current carries an empty string; empty strings are omitted (5.1)")
	}

	// The schema, as the conformance checker applies it, must reject
	// what section 4 and 5.4 forbid, in a real answer.
	if _, err := conformance.ValidateCurrent(a.raw); err != nil {
		t.Fatalf("the real answer does not validate: %v", err)
	}
	fourth := bytes.Replace(a.raw, []byte(`{"protocol"`), []byte(`{"extra":1,"protocol"`), 1)
	if !bytes.Contains(fourth, []byte(`"extra"`)) {
		fourth = append(bytes.TrimSuffix(bytes.TrimSpace(a.raw), []byte("}")), []byte(`,"extra":1}`)...)
	}
	if _, err := conformance.ValidateCurrent(fourth); err == nil {
		t.Errorf("ValidateCurrent accepted a fourth top-level field")
	}
	heading := elemtest.Find(t, a.Root, "Heading", "Plain heading")
	unknown := bytes.Replace(a.raw, []byte(`"id":"`+heading.ID+`","role":"Heading"`), []byte(`"id":"`+heading.ID+`","role":"Frobnicator"`), 1)
	if bytes.Equal(unknown, a.raw) {
		// Field order is the provider's business: rebuild instead.
		var cur mapping.Current
		json.Unmarshal(a.raw, &cur)
		elemtest.Walk(cur.Root, func(e *mapping.Element, _ []*mapping.Element) {
			if e.ID == heading.ID {
				e.Role = "Frobnicator"
			}
		})
		unknown, _ = json.Marshal(&cur)
	}
	if _, err := conformance.ValidateCurrent(unknown); err == nil {
		t.Errorf("ValidateCurrent accepted an unknown role")
	}
}

// Point 9: the descriptor of section 8: bundle from the browser's product,
// app title equal to the root's title, operations.
func TestDescriptor(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	d := p.descriptor(t)
	cur := p.current(t)

	ver, err := chromedp.CallBrowser(env.rootCtx, browser.GetVersion, cdproto.Empty{})
	if err != nil {
		t.Fatalf("Browser.getVersion: %v", err)
	}
	// Chromium calls itself "Chrome/…" in Browser.getVersion, so the test
	// knows the product from the binary it started.
	_, version, _ := strings.Cut(ver.Product, "/")
	base := strings.ToLower(filepath.Base(env.chromePath))
	var wantBundle string
	switch {
	case strings.Contains(base, "chromium"):
		wantBundle = "org.chromium.Chromium"
	case strings.Contains(base, "edge"):
		wantBundle = "com.microsoft.edgemac"
	case strings.Contains(base, "brave"):
		wantBundle = "com.brave.Browser"
	case strings.Contains(base, "chrome"):
		wantBundle = "com.google.Chrome"
	default:
		t.Fatalf("no bundle known to this test for %s: add the browser's bundle identifier here", env.chromePath)
	}
	if d.App.Bundle != wantBundle {
		t.Errorf("descriptor app.bundle = %q for %s, want %q", d.App.Bundle, env.chromePath, wantBundle)
	}
	if wantBundle == "org.chromium.Chromium" && cur.Root.Title != "Chromium" {
		t.Errorf("root title = %q for %s, want \"Chromium\"", cur.Root.Title, env.chromePath)
	}
	if d.App.Title != cur.Root.Title {
		t.Errorf("descriptor app.title = %q, root title = %q: want them equal", d.App.Title, cur.Root.Title)
	}
	if d.App.Version != "" && d.App.Version != version {
		t.Errorf("descriptor app.version = %q, Browser.getVersion says %q", d.App.Version, ver.Product)
	}
	if d.Protocol != "0.2.0" {
		t.Errorf("descriptor protocol = %q, want 0.2.0", d.Protocol)
	}
	if d.Provider.Name != "cdpprovider" || d.Provider.Version == "" {
		t.Errorf("descriptor provider = %s, want name cdpprovider and a version", dump(d.Provider))
	}
	if diff := cmp.Diff([]string{"current", "locate"}, d.Operations); diff != "" {
		t.Errorf("descriptor operations (-want +got):\n%s", diff)
	}
}

// Point 9 with 7.3: --no-locate drops locate from the operations, the
// extension declaration and the templates, and answers locate URIs as
// unknown resources.
func TestNoLocate(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL(), "--no-locate")
	openTab(t, env.rootCtx, env.pageA+"/plain.html")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	d := p.descriptor(t)
	if diff := cmp.Diff([]string{"current"}, d.Operations); diff != "" {
		t.Errorf("descriptor operations with --no-locate (-want +got):\n%s", diff)
	}
	ext := asJSON(t, p.session.InitializeResult().Capabilities.Extensions[extensionName])
	want := map[string]any{"protocol": "0.2.0", "operations": []any{"current"}, "descriptor": descriptorURI}
	if diff := cmp.Diff(want, ext); diff != "" {
		t.Errorf("extension declaration with --no-locate (-want +got):\n%s", diff)
	}
	tmpls, err := p.session.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Errorf("resources/templates/list with --no-locate: %v, want an empty list", err)
	} else if len(tmpls.ResourceTemplates) != 0 {
		t.Errorf("resources/templates/list with --no-locate = %s, want none", dump(tmpls.ResourceTemplates))
	}
	res, err := p.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list with --no-locate: %v", err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	if diff := cmp.Diff([]string{currentURI, currentURI + "?scope=screen", descriptorURI}, uris); diff != "" {
		t.Errorf("resources/list with --no-locate (-want +got):\n%s", diff)
	}
	cur := p.current(t)
	btn := elemtest.Find(t, cur.Root, "Button", "Plain button")
	p.wantNotFound(t, locatePrefix+btn.ID, "locate of a real element with --no-locate")
	p.wantNotFound(t, locatePrefix+cur.Root.ID, "locate of the root with --no-locate")
	p.wantServing(t, "locate with --no-locate")
}
