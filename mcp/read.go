package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readCurrent answers uicontext://current.
func (s *Server) readCurrent(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	cur, err := s.src.Current(ctx)
	if err != nil {
		return nil, s.internalError(uri, err)
	}
	s.failMu.Lock()
	s.lastFailure = "" // a failure after this one is news again
	s.failMu.Unlock()
	return s.contents(uri, cur)
}

// readDescriptor answers uicontext://descriptor (section 8).
func (s *Server) readDescriptor(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	app, err := s.src.App(ctx)
	if err != nil {
		return nil, s.internalError(uri, err)
	}
	return s.contents(uri, mapping.Descriptor{
		Protocol:   mapping.Protocol,
		App:        app,
		Provider:   mapping.ProviderInfo{Name: s.opts.ProviderName, Version: s.opts.ProviderVersion},
		Operations: s.ops,
	})
}

// readLocation answers uicontext://locate/{id}.
func (s *Server) readLocation(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := route(uri, s.opts.Locate)
	if err != nil {
		return nil, s.readError(uri, id, err)
	}
	loc, err := s.src.Locate(ctx, id)
	if err != nil {
		return nil, s.readError(uri, id, err)
	}
	return s.contents(uri, loc)
}

// contents is the result of a read: one item holding v as compact JSON.
func (s *Server) contents(uri string, v any) (*sdk.ReadResourceResult, error) {
	text, err := encode(v)
	if err != nil {
		return nil, s.internalError(uri, fmt.Errorf("encoding the answer: %w", err))
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
		{URI: uri, MIMEType: MIMEType, Text: text},
	}}, nil
}

// encode is v as the compact JSON of a resource's text. Page text is full
// of & and <: HTML escaping is off, to keep it readable and short. The
// answer of current, the big one, has an encoder of its own, which writes
// the same bytes many times faster (mapping.Current.AppendJSON).
func encode(v any) (string, error) {
	if cur, ok := v.(*mapping.Current); ok {
		return string(cur.AppendJSON(make([]byte, 0, 4096))), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}
