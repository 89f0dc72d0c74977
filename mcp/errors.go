package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readError turns the failure of a read of uri (about element id, for a
// locate URI) into the error the host gets (7.2). A URI that matches
// nothing, a malformed id, an id never issued and an element that cannot
// be placed are "resource not found", each with its own message; anything
// else is an internal error.
func (s *Server) readError(uri, id string, err error) error {
	var why string
	switch {
	case errors.Is(err, errNoResource):
		why = fmt.Sprintf("no resource matches %q; this provider has %s", uri, s.resourceURIs())
	case errors.Is(err, mapping.ErrMalformedID):
		why = fmt.Sprintf("malformed element id %q: an id is 1 to 128 characters of A-Z a-z 0-9 . _ ~ -", id)
	case errors.Is(err, mapping.ErrNotIssued):
		why = fmt.Sprintf("element id %q was not issued by this run of the provider; read %s for the ids of this run", id, CurrentURI)
	case errors.Is(err, mapping.ErrCannotPlace):
		why = fmt.Sprintf("element %q cannot be placed on screen", id)
		if err.Error() != mapping.ErrCannotPlace.Error() && !errors.Is(err, errNoResource) {
			why += ": " + strings.TrimPrefix(err.Error(), mapping.ErrCannotPlace.Error()+": ")
		}
	default:
		return s.internalError(uri, err)
	}
	s.opts.Logger.Debug("resource not found", "uri", uri, "why", why, "err", err)
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri}) // a struct of one string always marshals
	return &jsonrpc.Error{
		Code:    sdk.CodeResourceNotFound,
		Message: "resource not found: " + why,
		Data:    data,
	}
}

// internalError is the error of a read that failed for a reason other
// than the URI: the browser could not be reached or failed mid-read. Its
// message is err's, which says what failed and what to do. The log says
// each failure once: the same failure again (a browser still down, still
// asking its person) is logged at debug level only.
func (s *Server) internalError(uri string, err error) error {
	msg := err.Error()
	s.failMu.Lock()
	again := msg == s.lastFailure
	s.lastFailure = msg
	s.failMu.Unlock()
	level := slog.LevelWarn
	if again {
		level = slog.LevelDebug
	}
	s.opts.Logger.Log(context.Background(), level, "read failed", "uri", uri, "err", msg)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// resourceURIs lists what a read may ask for, for the message of an
// unknown URI.
func (s *Server) resourceURIs() string {
	uris := []string{CurrentURI, DescriptorURI}
	if s.opts.Locate {
		uris = append(uris, LocateTemplate)
	}
	return strings.Join(uris, ", ")
}
