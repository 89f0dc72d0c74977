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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // page text is full of & and <; keep it readable and short
	if err := enc.Encode(v); err != nil {
		return nil, s.internalError(uri, fmt.Errorf("encoding the answer: %w", err))
	}
	text := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
		{URI: uri, MIMEType: MIMEType, Text: string(text)},
	}}, nil
}
