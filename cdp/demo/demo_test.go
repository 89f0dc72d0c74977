package demo

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q, want http://127.0.0.1:PORT/", s.URL())
	}
	for path, want := range map[string]string{
		"":           "<title>Harbor Books: checkout</title>",
		"frame.html": "<title>Basket summary</title>",
	} {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET /%s: status %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
	resp, err := http.Get(s.URL() + "nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope: status %d, want 404", resp.StatusCode)
	}
}

func TestLoaded(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	select {
	case <-s.Loaded():
		t.Fatal("Loaded before any page loaded")
	default:
	}
	for range 2 { // a reload reports again
		resp, err := http.Post(s.URL()+"loaded", "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	<-s.Loaded()
}
