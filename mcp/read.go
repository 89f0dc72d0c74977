package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each operation is answered in two steps: a ...Text function reads the
// source and returns the answer's JSON text, or the error the host gets;
// the resource handler puts that text in a read's one content item. The
// tool mirror (tools.go) calls the same ...Text functions, so a tool's
// text is the resource's text, byte for byte.

// readCurrent answers uicontext://current, and its screen.
func (s *Server) readCurrent(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	text, err := s.currentText(ctx, uri)
	return contents(uri, text, err)
}

// readDescriptor answers uicontext://descriptor (section 8).
func (s *Server) readDescriptor(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	text, err := s.descriptorText(ctx, uri)
	return contents(uri, text, err)
}

// readLocation answers uicontext://locate/{id}.
func (s *Server) readLocation(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	text, err := s.locationText(ctx, uri)
	return contents(uri, text, err)
}

// currentText is the answer of current, read as uri.
func (s *Server) currentText(ctx context.Context, uri string) (string, *hostError) {
	cur, herr := s.current(ctx, uri)
	if herr != nil {
		return "", herr
	}
	return s.encode(uri, cur)
}

// current reads current from the source, as uri: the screen for
// ScreenURI.
func (s *Server) current(ctx context.Context, uri string) (*mapping.Current, *hostError) {
	read := s.src.Current
	if uri == ScreenURI {
		read = s.src.Screen
	}
	cur, err := read(ctx)
	if err != nil {
		return nil, s.browserError(uri, err)
	}
	s.failMu.Lock()
	s.lastFailure = "" // a failure after this one is news again
	s.failMu.Unlock()
	return cur, nil
}

// descriptorText is the descriptor, read as uri.
func (s *Server) descriptorText(ctx context.Context, uri string) (string, *hostError) {
	app, err := s.src.App(ctx)
	if err != nil {
		return "", s.browserError(uri, err)
	}
	return s.encode(uri, mapping.Descriptor{
		Protocol:   mapping.Protocol,
		App:        app,
		Provider:   mapping.ProviderInfo{Name: s.opts.ProviderName, Version: s.opts.ProviderVersion},
		Operations: s.ops,
	})
}

// locationText is the answer of locate for the locate URI uri.
func (s *Server) locationText(ctx context.Context, uri string) (string, *hostError) {
	id, err := route(uri, s.opts.Locate)
	if err != nil {
		return "", s.readError(uri, id, err)
	}
	loc, err := s.src.Locate(ctx, id)
	if err != nil {
		return "", s.readError(uri, id, err)
	}
	return s.encode(uri, loc)
}

// encode is the text of an answer: v as compact JSON. Every answer a
// host gets, as a resource or from a tool, is encoded here. Page text is
// full of & and <: HTML escaping is off, to keep it readable and short.
// The answer of current, the big one, has an encoder of its own, which
// writes the same bytes many times faster and copies those of each
// document unchanged since the answer before (mapping.DocumentCache).
func (s *Server) encode(uri string, v any) (string, *hostError) {
	if cur, ok := v.(*mapping.Current); ok {
		return string(s.docs.AppendJSON(make([]byte, 0, 4096), cur)), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", s.browserError(uri, fmt.Errorf("encoding the answer: %w", err))
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// contents is the result of a read of uri: one item holding text, or
// the JSON-RPC error of herr when the read failed.
func contents(uri, text string, herr *hostError) (*sdk.ReadResourceResult, error) {
	if herr != nil {
		return nil, herr.rpc()
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
		{URI: uri, MIMEType: MIMEType, Text: text},
	}}, nil
}
