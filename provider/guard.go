package provider

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// guard passes a request on to next only when it comes from a client of
// this machine that holds the token. Whoever reaches the endpoint reads
// what the person sees, so in order:
//
//   - The Host header must name this machine (localhost, 127.0.0.0/8,
//     ::1), unless allowRemote: a web page whose own name resolves to
//     127.0.0.1 (DNS rebinding) sends its name. Else 403.
//   - An Origin header, when there is one, must be of this machine too:
//     a browser sends it with a web page's requests, and no web page is a
//     client. Programs send none. Else 403.
//   - The Authorization header must be "Bearer TOKEN", compared in
//     constant time. Else 401 with WWW-Authenticate: Bearer.
//
// A refused request is logged, without its headers' values.
func guard(next http.Handler, token string, allowRemote bool, log *slog.Logger) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(status int, why string) {
			log.Warn("refused an HTTP request", "status", status, "why", why, "method", r.Method, "path", r.URL.Path, "from", r.RemoteAddr)
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", "Bearer")
			}
			http.Error(w, http.StatusText(status)+": "+why, status)
		}
		if !allowRemote && !browsers.IsLoopback(hostname(r.Host)) {
			refuse(http.StatusForbidden, "the Host header does not name this machine; connect to 127.0.0.1, [::1] or localhost")
			return
		}
		if origin, ok := r.Header["Origin"]; ok && !loopbackOrigin(origin) {
			refuse(http.StatusForbidden, "requests from web pages are refused (an Origin not of this machine)")
			return
		}
		scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			refuse(http.StatusUnauthorized, "no bearer token: send Authorization: Bearer TOKEN, the token cdpprovider printed at start or the one in its --token-file")
			return
		}
		got := sha256.Sum256([]byte(strings.TrimSpace(cred)))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			refuse(http.StatusUnauthorized, "wrong bearer token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostname is the host of a Host header (host or host:port), lower case,
// without the brackets of an IPv6 address.
func hostname(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(host)
}

// loopbackOrigin reports whether the Origin header's values are all an
// http or https origin of this machine. "null" (a sandboxed page, a
// file) is not.
func loopbackOrigin(values []string) bool {
	if len(values) != 1 {
		return false
	}
	u, err := url.Parse(values[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return browsers.IsLoopback(strings.ToLower(u.Hostname()))
}
