package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool mirror: with Options.Tools the server also offers current and
// locate as tools, for hosts whose model is given tools and never
// resources. It is outside the protocol's binding: the resources stay as
// they are, and neither the descriptor nor the extension declaration
// names the tools. A tool's result is one text item holding exactly the
// text a read of the resource holds; a read's error becomes a result
// with isError set and the error's message.

// Tool names.
const (
	// ToolCurrent mirrors uicontext://current; it takes no arguments.
	ToolCurrent = "ui_current"
	// ToolLocate mirrors uicontext://locate/{id}; it takes {"id": string}.
	ToolLocate = "ui_locate"
)

// readOnly are the annotations of both tools: they read, the same call
// twice reads the same thing if nothing changed, and they reach nothing
// but the browser on the screen.
var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

// addTools adds the tools of the operations offered.
func (s *Server) addTools() {
	s.mcp.AddTool(&sdk.Tool{
		Name:  ToolCurrent,
		Title: "What the user sees in the browser",
		Description: "What the user has open in their browser now: windows, tabs and the active page as a tree of elements " +
			"(role, title, value, states, id). The focus path, the hovered and the selected elements are marked with the states " +
			"focused, hovered and selected. The same JSON as the resource " + CurrentURI + ".",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
		Annotations: readOnly,
	}, s.callCurrent)
	if !s.opts.Locate {
		return
	}
	s.mcp.AddTool(&sdk.Tool{
		Name:  ToolLocate,
		Title: "Where an element is on screen",
		Description: "Where an element is on screen, by the id " + ToolCurrent + " gave it: onscreen (with its frame and visible part " +
			"in screen points), offscreen, or gone. The same JSON as the resource " + LocateTemplate + ".",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"id": map[string]any{"type": "string", "description": "An element id from " + ToolCurrent + "."},
			},
			"required":             []string{"id"},
			"additionalProperties": false,
		},
		Annotations: readOnly,
	}, s.callLocate)
}

// callCurrent answers ui_current.
func (s *Server) callCurrent(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return toolResult(s.currentText(ctx, CurrentURI))
}

// callLocate answers ui_locate: the read of the locate URI of the id.
func (s *Server) callLocate(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		ID *string `json:"id"`
	}
	if req.Params == nil || json.Unmarshal(req.Params.Arguments, &args) != nil || args.ID == nil {
		return failed(ToolLocate + ` needs {"id": "…"}: the id of an element as ` + ToolCurrent + " gave it"), nil
	}
	// An id of the §5.2 form needs no escaping; any other is escaped so
	// that it reaches the id check whole rather than as another URI.
	uri := locatePrefix + url.PathEscape(*args.ID)
	if *args.ID == "" {
		return toolResult("", s.readError(uri, "", mapping.ErrMalformedID))
	}
	return toolResult(s.locationText(ctx, uri))
}

// toolResult is a tool's result for the text of a read, or its error.
func toolResult(text string, err error) (*sdk.CallToolResult, error) {
	if err != nil {
		msg := err.Error()
		if je := (*jsonrpc.Error)(nil); errors.As(err, &je) {
			msg = je.Message
		}
		return failed(msg), nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
}

// failed is a tool result that reports msg as an error.
func failed(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}
