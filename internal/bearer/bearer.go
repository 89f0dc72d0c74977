// Package bearer is the client's side of serve --http's token: a
// transport that sends the token with every request (current, find and
// at with --server, and tests that speak MCP over HTTP to a provider),
// and tells a test when the server has opened its stream of
// notifications.
package bearer

import "net/http"

// Transport sends every request with "Authorization: Bearer Token" and,
// when the server opens a stream of notifications to the client, says so
// on Streams: until then a notification would find no one to take it.
// Under MCP revisions with sessions that stream is a GET answered 200;
// under 2026-07-28, a subscriptions/listen answered 200 (the POST whose
// Mcp-Method header names it). A Streams that is nil or full is not told.
// The zero Streams suits a test that waits for no stream.
type Transport struct {
	Token   string
	Streams chan<- struct{}
}

// RoundTrip sends a copy of r with the token, by http.DefaultTransport.
func (t Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.Token)
	resp, err := http.DefaultTransport.RoundTrip(r)
	stream := r.Method == http.MethodGet || r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "subscriptions/listen"
	if err == nil && stream && resp.StatusCode == http.StatusOK {
		select {
		case t.Streams <- struct{}{}:
		default:
		}
	}
	return resp, err
}
