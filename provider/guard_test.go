package provider

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGuard(t *testing.T) {
	const token = "3f1c9a7e5b2d4068"
	tests := []struct {
		name        string
		host        string // the Host header; "" for 127.0.0.1:8377
		origin      string // "" for none
		auth        string // the Authorization header; "" for none
		allowRemote bool
		want        int // the status; 200 when passed on
	}{
		{name: "the token", auth: "Bearer " + token, want: 200},
		{name: "the scheme in any case", auth: "bearer " + token, want: 200},
		{name: "no token", want: 401},
		{name: "a wrong token", auth: "Bearer " + token + "x", want: 401},
		{name: "a prefix of the token", auth: "Bearer " + token[:8], want: 401},
		{name: "an empty token", auth: "Bearer ", want: 401},
		{name: "basic auth", auth: "Basic " + token, want: 401},
		{name: "the token without a scheme", auth: token, want: 401},

		{name: "localhost", host: "localhost:8377", auth: "Bearer " + token, want: 200},
		{name: "LOCALHOST", host: "LOCALHOST:8377", auth: "Bearer " + token, want: 200},
		{name: "IPv6 loopback", host: "[::1]:8377", auth: "Bearer " + token, want: 200},
		{name: "127.0.0.0/8", host: "127.1.2.3:8377", auth: "Bearer " + token, want: 200},
		{name: "no port", host: "127.0.0.1", auth: "Bearer " + token, want: 200},
		{name: "a rebound name", host: "evil.example:8377", auth: "Bearer " + token, want: 403},
		{name: "a rebound name, no token", host: "evil.example:8377", want: 403},
		{name: "a LAN address", host: "192.168.1.20:8377", auth: "Bearer " + token, want: 403},
		{name: "a name, with --allow-remote", host: "box.example:8377", auth: "Bearer " + token, allowRemote: true, want: 200},
		{name: "a name, with --allow-remote, no token", host: "box.example:8377", allowRemote: true, want: 401},

		{name: "a loopback origin", origin: "http://localhost:3000", auth: "Bearer " + token, want: 200},
		{name: "a loopback origin by address", origin: "https://127.0.0.1", auth: "Bearer " + token, want: 200},
		{name: "an IPv6 loopback origin", origin: "http://[::1]:5173", auth: "Bearer " + token, want: 200},
		{name: "a foreign origin", origin: "http://evil.example", auth: "Bearer " + token, want: 403},
		{name: "a foreign origin, no token", origin: "http://evil.example", want: 403},
		{name: "a foreign origin, with --allow-remote", origin: "https://evil.example", auth: "Bearer " + token, allowRemote: true, want: 403},
		{name: "a foreign origin named like localhost", origin: "http://localhost.evil.example", auth: "Bearer " + token, want: 403},
		{name: "the null origin", origin: "null", auth: "Bearer " + token, want: 403},
		{name: "an extension's origin", origin: "chrome-extension://abcdef", auth: "Bearer " + token, want: 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			passed := false
			h := guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { passed = true }), token, tt.allowRemote, slog.New(slog.DiscardHandler))
			r := httptest.NewRequest("POST", "http://127.0.0.1:8377/mcp", strings.NewReader("{}"))
			if tt.host != "" {
				r.Host = tt.host
			}
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want || passed != (tt.want == 200) {
				t.Fatalf("status %d, passed on %v; want %d, passed on %v\n%s", w.Code, passed, tt.want, tt.want == 200, w.Body)
			}
			if got := w.Header().Get("WWW-Authenticate"); (tt.want == 401) != (got == "Bearer") {
				t.Errorf("WWW-Authenticate %q with status %d; want Bearer with 401 only", got, w.Code)
			}
			if strings.Contains(w.Body.String(), token) {
				t.Errorf("the answer holds the token: %s", w.Body)
			}
		})
	}
}

// The token's value never reaches the log, right or wrong.
func TestGuardLogsNoToken(t *testing.T) {
	var log strings.Builder
	h := guard(http.NotFoundHandler(), "s3cret-token", false, slog.New(slog.NewTextHandler(&log, nil)))
	for _, auth := range []string{"Bearer s3cret-tokem", "Bearer s3cret-token"} {
		r := httptest.NewRequest("GET", "http://127.0.0.1:1/mcp", nil)
		r.Header.Set("Authorization", auth)
		r.Header.Set("Origin", "http://evil.example")
		h.ServeHTTP(httptest.NewRecorder(), r)
		r.Header.Del("Origin")
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	if !strings.Contains(log.String(), "refused") {
		t.Fatalf("no refusal logged:\n%s", log.String())
	}
	if strings.Contains(log.String(), "s3cret") {
		t.Errorf("the log holds a token:\n%s", log.String())
	}
}
