// Package demo serves the built-in demo page that `cdpprovider --launch`
// opens when no URL is given: a small checkout page with landmarks,
// headings, a form (text field, password, checkbox, select, buttons),
// links, hidden content and a same-origin iframe, so that one read of
// current shows most of what the protocol reports.
//
// The page is served over HTTP on loopback rather than as a data: URL so
// that its iframe is a real same-origin document.
package demo

import (
	"embed"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

//go:embed demo.html frame.html
var files embed.FS

// Server serves the demo page on 127.0.0.1. The caller must call Close.
type Server struct {
	srv *http.Server
	url string

	loadOnce sync.Once
	loaded   chan struct{} // closed when a page reports its load event
}

// Start serves the demo page on a free port of 127.0.0.1.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: listen: %w", err)
	}
	s := &Server{url: "http://" + ln.Addr().String() + "/", loaded: make(chan struct{})}
	s.srv = &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	// Serve returns http.ErrServerClosed after Close; any other error
	// just means the page stops loading, which the browser shows.
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the demo page's address, http://127.0.0.1:PORT/.
func (s *Server) URL() string { return s.url }

// Close stops serving.
func (s *Server) Close() error { return s.srv.Close() }

// Loaded is closed once a browser has loaded the demo page with its
// iframe (the page's load event), so that a read after it sees the page
// complete.
func (s *Server) Loaded() <-chan struct{} { return s.loaded }

// handler is Handler plus POST /loaded, which the page sends on load.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", Handler())
	mux.HandleFunc("POST /loaded", func(w http.ResponseWriter, r *http.Request) {
		s.loadOnce.Do(func() { close(s.loaded) })
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// Handler serves the demo page at / and its iframe at /frame.html.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		serveFile(w, r, "demo.html")
	})
	mux.HandleFunc("GET /frame.html", func(w http.ResponseWriter, r *http.Request) {
		serveFile(w, r, "frame.html")
	})
	return mux
}

// serveFile writes one embedded file as HTML.
func serveFile(w http.ResponseWriter, _ *http.Request, name string) {
	b, err := files.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}
