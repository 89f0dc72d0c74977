package browsers

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseEndpoint(t *testing.T) {
	for _, tc := range []struct {
		addr        string
		allowRemote bool
		wantHTTP    string
		wantWS      string
		wantQuery   string
		wantAsGiven string
		wantErr     string
	}{
		{addr: "http://127.0.0.1:9222", wantHTTP: "http://127.0.0.1:9222"},
		{addr: "127.0.0.1:9222", wantHTTP: "http://127.0.0.1:9222"},
		{addr: "localhost:9222", wantHTTP: "http://localhost:9222"},
		{addr: "http://[::1]:9222", wantHTTP: "http://[::1]:9222"},
		// ws:// with no path is the host and port, as http:// is.
		{addr: "ws://127.0.0.1:9222", wantHTTP: "http://127.0.0.1:9222"},
		{addr: "ws://localhost:9222/", wantHTTP: "http://localhost:9222"},
		// With a query, a service's address: resolved through /json/version
		// with the query, dialled as given only when that answers nothing.
		{addr: "ws://127.0.0.1:9222/?session=a", wantHTTP: "http://127.0.0.1:9222", wantQuery: "session=a", wantAsGiven: "ws://127.0.0.1:9222/?session=a"},
		{addr: "http://127.0.0.1:3000?token=T", wantHTTP: "http://127.0.0.1:3000", wantQuery: "token=T"},
		{addr: "wss://service.example?token=T", allowRemote: true, wantHTTP: "https://service.example", wantQuery: "token=T", wantAsGiven: "wss://service.example?token=T"},
		{addr: "ws://127.0.0.1:3000/devtools/browser/b1?token=T", wantHTTP: "http://127.0.0.1:3000", wantWS: "ws://127.0.0.1:3000/devtools/browser/b1?token=T", wantQuery: "token=T"},
		{addr: "ws://127.0.0.1:9222/devtools/browser/abc", wantHTTP: "http://127.0.0.1:9222", wantWS: "ws://127.0.0.1:9222/devtools/browser/abc"},
		{addr: "http://10.1.2.3:9222", wantErr: "--allow-remote"},
		{addr: "http://example.com:9222", wantErr: "not on this machine"},
		{addr: "http://10.1.2.3:9222", allowRemote: true, wantHTTP: "http://10.1.2.3:9222"},
		{addr: "http://127.0.0.1", wantErr: "host and port"},
		{addr: "ws://10.1.2.3:9222/devtools/browser/abc", wantErr: "--allow-remote"},
		{addr: "http://[2001:db8::1]:9222", wantErr: "--allow-remote"},
		{addr: "wss://browser.example/session?token=x", allowRemote: true, wantHTTP: "https://browser.example", wantWS: "wss://browser.example/session?token=x", wantQuery: "token=x"},
		{addr: "https://browser.example", allowRemote: true, wantHTTP: "https://browser.example"},
		{addr: "ftp://127.0.0.1:21", wantErr: "scheme"},
	} {
		ep, err := ParseEndpoint(tc.addr, tc.allowRemote, nil, nil)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseEndpoint(%q) error = %v, want one mentioning %q", tc.addr, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseEndpoint(%q): %v", tc.addr, err)
			continue
		}
		if ep.auto || ep.http != tc.wantHTTP || ep.ws != tc.wantWS || ep.query != tc.wantQuery || ep.asGiven != tc.wantAsGiven {
			t.Errorf("ParseEndpoint(%q) = http %q ws %q query %q as given %q, want %q %q %q %q", tc.addr, ep.http, ep.ws, ep.query, ep.asGiven,
				tc.wantHTTP, tc.wantWS, tc.wantQuery, tc.wantAsGiven)
		}
	}
}

func TestParseEndpointAuto(t *testing.T) {
	for _, addr := range []string{"", "auto"} {
		ep, err := ParseEndpoint(addr, false, nil, nil)
		if err != nil || !ep.auto || len(ep.dirs) == 0 {
			t.Errorf("ParseEndpoint(%q) = %+v, %v; want auto over the default directories", addr, ep, err)
		}
	}
}

func TestParseHeader(t *testing.T) {
	h, err := ParseHeader([]string{"Authorization: Bearer s3cret", "X-Token:abc:def ", "X-Token: two"})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get("Authorization"); got != "Bearer s3cret" {
		t.Errorf("Authorization = %q", got)
	}
	if got := h.Values("X-Token"); len(got) != 2 || got[0] != "abc:def" || got[1] != "two" {
		t.Errorf("X-Token = %q, want [abc:def two]", got)
	}
	for _, bad := range []string{"Bearer s3cret", ": s3cret", "Auth orization: s3cret", "A: s3cret\r\nX: y"} {
		bad = strings.ReplaceAll(bad, `\r\n`, "\r\n")
		_, err := ParseHeader([]string{bad})
		if err == nil {
			t.Errorf("ParseHeader(%q): no error", bad)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseHeader(%q): the error %q shows the value", bad, err)
		}
	}
}

func TestProductName(t *testing.T) {
	for _, tc := range []struct {
		product, ua string
		brands      []string
		want        string
	}{
		{"Chrome", "Mozilla/5.0 HeadlessChrome/156.0.0.0", []string{"Not:A-Brand", "Chromium"}, "Chromium"},
		{"Chrome", "", []string{"Chromium", "Google Chrome"}, "Google Chrome"},
		{"Chrome", "", []string{"Chromium", "Microsoft Edge"}, "Microsoft Edge"},
		{"Chrome", "", []string{"Chromium", "Brave"}, "Brave"},
		{"Chrome", "Mozilla/5.0 Chrome/156 Safari/537.36 Edg/156.0", nil, "Microsoft Edge"},
		{"Chrome", "", nil, "Chromium"},
	} {
		if got := ProductName(tc.product, tc.ua, tc.brands); got != tc.want {
			t.Errorf("ProductName(%q, %q, %q) = %q, want %q", tc.product, tc.ua, tc.brands, got, tc.want)
		}
	}
}

// ws://HOST:PORT without the browser's path is read as http://HOST:PORT:
// the websocket is found through /json/version, or, when that answers
// 404, in the DevToolsActivePort that names the port.
func TestEndpointWSWithoutPath(t *testing.T) {
	port := fakeBrowser(t, http.StatusOK, "/devtools/browser/g3")
	ep, err := ParseEndpoint(fmt.Sprintf("ws://127.0.0.1:%d", port), false, []UserDataDir{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if want := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/g3", port); err != nil || tg.WS != want || tg.http == "" {
		t.Errorf("ws://127.0.0.1:%d resolved %+v, %v; want %s with /json", port, tg, err, want)
	}

	port = fakeBrowser(t, http.StatusNotFound, "")
	dir := writeActivePort(t, "Chromium", port, "/devtools/browser/c3", time.Now())
	if ep, err = ParseEndpoint(fmt.Sprintf("ws://127.0.0.1:%d/", port), false, []UserDataDir{dir}, nil); err != nil {
		t.Fatal(err)
	}
	tg, err = ep.Resolve(context.Background(), discardLogger())
	if want := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/c3", port); err != nil || tg.WS != want || !tg.Asks {
		t.Errorf("ws://127.0.0.1:%d/ answering 404 resolved %+v, %v; want %s, asking", port, tg, err, want)
	}
}

// The header of --header goes with every HTTP request to the endpoint:
// /json/version when resolving, and /json/list during reads.
func TestEndpointHeaderOnJSON(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // path: the Authorization it came with
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		switch r.URL.Path {
		case "/json/version":
			fmt.Fprintf(w, `{"Browser":"Chrome/156.0","webSocketDebuggerUrl":"ws://%s/devtools/browser/h1"}`, r.Host)
		case "/json/list":
			fmt.Fprint(w, `[{"id":"T1"}]`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	header, err := ParseHeader([]string{"Authorization: Bearer s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	ep, err := ParseEndpoint(fmt.Sprintf("http://127.0.0.1:%d", port), false, []UserDataDir{}, header)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ ID string }
	if err := tg.GetJSON(context.Background(), "/json/list", &list); err != nil || len(list) != 1 {
		t.Fatalf("GetJSON /json/list = %v, %v", list, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/json/version", "/json/list"} {
		if got := seen[path]; got != "Bearer s3cret" {
			t.Errorf("GET %s came with Authorization %q, want the --header's", path, got)
		}
	}
}
