package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool mirror: with Options.Tools the server also offers current and
// locate as tools, for hosts whose model is given tools and never
// resources. It is outside the protocol's binding: the resources stay as
// they are, and neither the descriptor nor the extension declaration
// names the tools. A tool's result is one text item holding exactly the
// text a read of the resource holds. A read's error becomes a result
// with isError set: its text is the reason and a message that names
// tools, never resources ("not-issued: element id … call ui_current …"),
// and its _meta holds the reason again under MetaError, for the host's
// code. Arguments the input schema does not allow are such an error too
// (invalid-arguments).

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
			"in screen points), offscreen (scrolled away, hidden, in a background tab or a minimised window; an element without a box, " +
			"such as one not displayed, is offscreen without a frame), or gone (removed, or its page navigated away or closed). " +
			"Windows, Documents and the elements of a page can be located. The Application and a Tab or TabList cannot: the browser " +
			"draws them and they have no place of their own (locate a Window, or the Document of the active tab); nor can an element " +
			"without a DOM node, a JavaScript dialog, or the Document of a crashed page. Those calls fail with cannot-be-placed; " +
			"an id that " + ToolCurrent + " did not give in this run fails with not-issued. The same JSON as the resource " + LocateTemplate + ".",
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
func (s *Server) callCurrent(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if _, bad := arguments(req, ToolCurrent); bad != nil {
		return bad, nil
	}
	return toolResult(s.currentText(ctx, CurrentURI))
}

// locateUsage is the error of a ui_locate call without a string id.
const locateUsage = ToolLocate + ` needs {"id": "…"}: the id of an element as ` + ToolCurrent + " gave it"

// callLocate answers ui_locate: the read of the locate URI of the id.
func (s *Server) callLocate(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args, bad := arguments(req, ToolLocate, "id")
	if bad != nil {
		return bad, nil
	}
	var id string
	if raw, ok := args["id"]; !ok || string(raw) == "null" || json.Unmarshal(raw, &id) != nil {
		return failed(ReasonInvalidArguments, locateUsage), nil
	}
	// An id of the §5.2 form needs no escaping; any other is escaped so
	// that it reaches the id check whole rather than as another URI.
	uri := locatePrefix + url.PathEscape(id)
	if id == "" {
		return s.readError(uri, "", mapping.ErrMalformedID).toolResult(), nil
	}
	return toolResult(s.locationText(ctx, uri))
}

// arguments decodes a call's arguments, an object whose members must be
// among names (the input schema's additionalProperties: false). A call
// whose arguments are not such an object gets the failed result bad.
// No arguments at all are an empty object.
func arguments(req *sdk.CallToolRequest, tool string, names ...string) (args map[string]json.RawMessage, bad *sdk.CallToolResult) {
	if req.Params != nil && len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, failed(ReasonInvalidArguments, tool+"'s arguments must be a JSON object")
		}
	}
	var unknown []string
	for name := range args {
		if !slices.Contains(names, name) {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) == 0 {
		return args, nil
	}
	slices.Sort(unknown)
	takes := "takes no arguments"
	if len(names) > 0 {
		takes = fmt.Sprintf(`takes only {"%s": …}`, strings.Join(names, `": …, "`))
	}
	return nil, failed(ReasonInvalidArguments, fmt.Sprintf("%s %s; unknown argument %s", tool, takes, strings.Join(unknown, ", ")))
}

// toolResult is a tool's result for the text of a read, or its error.
func toolResult(text string, herr *hostError) (*sdk.CallToolResult, error) {
	if herr != nil {
		return herr.toolResult(), nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
}

// failed is a tool result that reports an error of the reason: its text
// is the reason, a colon and msg; its _meta holds the reason under
// MetaError.
func failed(reason, msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: reason + ": " + msg}},
		Meta:    sdk.Meta{MetaError: errorData{Reason: reason}},
	}
}
