package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfflineKeepsThePageHome serves a saved page with -offline: the
// answer must forbid its scripts and every other origin, and without
// -offline it must not (the documentation pages keep their scripts).
func TestOfflineKeepsThePageHome(t *testing.T) {
	dir := t.TempDir()
	page := `<html><head><base href="https://example.com/"><script src="https://example.com/ads.js"></script></head><body>saved</body></html>`
	if err := os.WriteFile(filepath.Join(dir, "saved.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		offline bool
		want    []string
	}{
		{offline: true, want: []string{"default-src 'self' data:", "script-src 'none'", "base-uri 'none'"}},
		{offline: false},
	} {
		h, err := handler(dir, tc.offline)
		if err != nil {
			t.Fatalf("handler(%q, %v): %v", dir, tc.offline, err)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/saved.html", nil))
		if w.Code != http.StatusOK || w.Body.String() != page {
			t.Fatalf("offline=%v: GET /saved.html = %d %q, want 200 and the page", tc.offline, w.Code, w.Body.String())
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !tc.offline && csp != "" {
			t.Errorf("without -offline: Content-Security-Policy %q, want none", csp)
		}
		if tc.offline && csp == "" {
			t.Errorf("with -offline: no Content-Security-Policy")
		}
		for _, want := range tc.want {
			if !strings.Contains(csp, want) {
				t.Errorf("with -offline: Content-Security-Policy %q lacks %q", csp, want)
			}
		}
	}
}

// TestOfflineNeedsDir: the generated pages have nothing to keep offline,
// and a flag that would do nothing is an error.
func TestOfflineNeedsDir(t *testing.T) {
	if _, err := handler("", true); err == nil {
		t.Fatal("handler(\"\", true): no error, want one (-offline needs -dir)")
	}
}
