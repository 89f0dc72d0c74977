package bearer_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/bearer"
)

// The token goes with every request; a GET answered 200, or a
// subscriptions/listen, is told on Streams, once per stream and never
// blocking; other answers are not.
func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	streams := make(chan struct{}, 1)
	c := &http.Client{Transport: bearer.Transport{Token: "tok", Streams: streams}}
	get := func(path string) int {
		t.Helper()
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/"); code != http.StatusOK {
		t.Fatalf("GET with the token: %d, want 200", code)
	}
	if len(streams) != 1 {
		t.Errorf("a GET answered 200 was not told on Streams")
	}
	if code := get("/"); code != http.StatusOK || len(streams) != 1 {
		t.Errorf("a second GET with Streams full: %d, %d told; want 200 and no wait", code, len(streams))
	}
	<-streams
	if code := get("/missing"); code != http.StatusNotFound || len(streams) != 0 {
		t.Errorf("a GET answered %d was told on Streams: want 404, not told", code)
	}
	resp, err := c.Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(streams) != 0 {
		t.Errorf("a POST: %d, told on Streams %v; want 200, not told", resp.StatusCode, len(streams) != 0)
	}

	// Under 2026-07-28 the stream is a subscriptions/listen.
	req, err := http.NewRequest("POST", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(streams) != 1 {
		t.Errorf("a subscriptions/listen: %d, told on Streams %v; want 200, told", resp.StatusCode, len(streams) != 0)
	}
	select {
	case <-streams:
	default:
	}

	none := &http.Client{Transport: bearer.Transport{Token: "tok"}}
	resp, err = none.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET with no Streams: %d, want 200", resp.StatusCode)
	}
}
