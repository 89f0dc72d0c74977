package mcp

import (
	"context"
	"encoding/json"
	"errors"
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
//
// ui_current's arguments ask for part of the answer, or another form of
// it: format "outline" (the lines of mapping.Outline, as the command
// line prints them), root (an element id: that element's subtree) and
// depth (levels below the root). Without them, or with only format
// "json", its text is the resource's. A root that is not in the answer
// fails as ui_locate fails for the id (malformed, not-issued), or, for an
// id of this run, with the reason gone.
//
// ui_find (find.go) answers the elements of the answer that match a text
// and/or a role, as lines and as structuredContent. ui_at (at.go), offered
// with locate by a source that can tell, answers what is at a point of
// the screen.

// Tool names.
const (
	// ToolCurrent mirrors uicontext://current; it takes
	// {"scope": "screen"|"page", "format": "json"|"outline", "root":
	// string, "depth": integer}, each optional.
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
			"focused, hovered and selected. Without arguments, the same JSON as the resource " + CurrentURI + ": " +
			"{protocol, instance, root}, root the Application element, each element {id, role, title, value, description, url, " +
			"level, states, omitted, children}. format \"outline\" answers the same tree in fewer words, one element a line, the page's text without ids, " +
			"and no line for a paragraph, list item, figure or image that has nothing but its role and id " +
			"(" + ToolFind + " gives any element's id). " +
			"root answers only the subtree of the element with that id (in json, that element's object, not the whole answer). " +
			"depth cuts the tree that many levels below the root (or the Application); an element whose children were cut " +
			"says how many elements were left out below it (omitted, or (+N omitted) in the outline). " +
			"Start with scope \"screen\" and format \"outline\": what the user sees, a small part of the page; then read more " +
			"with root (the whole of that element) or scope \"page\" with a small depth.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"scope": map[string]any{
					"type": "string", "enum": []string{scopePage, scopeScreen}, "default": scopePage,
					"description": "screen: in the page (and its iframes), only the elements on screen, each with its ancestors; " +
						"an element with children off screen says how many (omitted), and in the outline lines \"… N above\", \"… N below\", " +
						"\"… N off screen\" say where, in reading order. page: the whole page.",
				},
				"format": map[string]any{
					"type": "string", "enum": []string{formatJSON, formatOutline}, "default": formatJSON,
					"description": "json: the answer as JSON. outline: one element a line, indented one space a level, " +
						`Role title = "value" [states] <url> level=N ("description") (+N omitted) #id, each part after the role only ` +
						`when the element has it, a title quoted only when it holds a quote, backslash, = [ < ( # ] > ) or starts or ends with a space; the page's text (a Text with a title alone) is only its quoted title, without role and id, ` +
						`and the texts side by side share a line: "Read the" "manual" "."; inline code is its text between backquotes in that line: "Call" ` + "`open()`" + `; ` +
						`a Paragraph, ListItem, Figure, Image or Text with nothing but its role and id (a ListItem's level aside) has no line, its children in its place; ` +
						`a title is said once: a Tab and the Window's Document with the Window's title, and an element whose title is its children's text, leave it out; ` +
						`a url is relative to the url of the Document above it ` +
						"(#top, page.html, /about) when it resolves so; with root, a first line \"in: …\" names the root's ancestors (role and title).",
				},
				"root": map[string]any{
					"type": "string",
					"description": "An element id from " + ToolCurrent + ": answer only that element and its descendants. " +
						"An id no longer in what the user sees fails with gone.",
				},
				"depth": map[string]any{
					"type": "integer", "minimum": 0,
					"description": "How many levels below the root to answer: 0 the root alone, 1 it and its children; default all.",
				},
			},
			"additionalProperties": false,
		},
		Annotations: readOnly,
	}, s.callCurrent)
	s.addFind()
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
	s.addAt()
}

// The scopes of ui_current.
const (
	scopePage   = "page"
	scopeScreen = "screen"
)

// The formats of ui_current.
const (
	formatJSON    = "json"
	formatOutline = "outline"
)

// currentQuery is what a ui_current call asks for.
type currentQuery struct {
	screen  bool // scope screen
	outline bool
	root    string // an element id; "" for the whole answer
	depth   int    // levels below the root; negative for all
}

// The errors of ui_current's arguments, each saying what the argument is.
const (
	scopeUsage  = ToolCurrent + `'s scope is "screen" or "page"`
	formatUsage = ToolCurrent + `'s format is "json" or "outline"`
	rootUsage   = ToolCurrent + "'s root is a string: the id of an element as " + ToolCurrent + " gave it"
	depthUsage  = ToolCurrent + "'s depth is a whole number of levels below the root: 0 for the root alone"
)

// callCurrent answers ui_current: without arguments (or with format
// json alone), the text of a read of the resource; otherwise the part
// of that answer, in the format, that the arguments ask for.
func (s *Server) callCurrent(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args, bad := arguments(req, ToolCurrent, "scope", "format", "root", "depth")
	if bad != nil {
		return bad, nil
	}
	q := currentQuery{depth: -1}
	if raw, ok := args["scope"]; ok {
		var scope string
		if json.Unmarshal(raw, &scope) != nil || scope != scopePage && scope != scopeScreen {
			return failed(ReasonInvalidArguments, scopeUsage), nil
		}
		q.screen = scope == scopeScreen
	}
	uri := CurrentURI
	if q.screen {
		uri = ScreenURI
	}
	if raw, ok := args["format"]; ok {
		var format string
		if json.Unmarshal(raw, &format) != nil || format != formatJSON && format != formatOutline {
			return failed(ReasonInvalidArguments, formatUsage), nil
		}
		q.outline = format == formatOutline
	}
	_, hasRoot := args["root"]
	if hasRoot {
		if string(args["root"]) == "null" || json.Unmarshal(args["root"], &q.root) != nil {
			return failed(ReasonInvalidArguments, rootUsage), nil
		}
		if !validID(q.root) {
			return s.readError(CurrentURI, q.root, mapping.ErrMalformedID).toolResult(), nil
		}
	}
	if raw, ok := args["depth"]; ok {
		if string(raw) == "null" || json.Unmarshal(raw, &q.depth) != nil || q.depth < 0 {
			return failed(ReasonInvalidArguments, depthUsage), nil
		}
	}
	if !q.outline && !hasRoot && q.depth < 0 {
		return toolResult(s.currentText(ctx, uri))
	}
	cur, herr := s.current(ctx, uri)
	if herr != nil {
		return herr.toolResult(), nil
	}
	top, above := cur.Root, []*mapping.Element(nil)
	if hasRoot {
		if top, above = mapping.Find(cur.Root, q.root); top == nil {
			return s.rootMissing(ctx, q.root, q.screen), nil
		}
	}
	top = mapping.Cut(top, q.depth)
	switch {
	case q.outline:
		var b strings.Builder
		mapping.OutlineIn(&b, above, top) // a Builder never fails
		return toolResult(b.String(), nil)
	case hasRoot:
		return toolResult(string(top.AppendJSON(nil)), nil)
	}
	// Not through the server's DocumentCache: the documents cut are
	// copies, which would push the answer's own out of it.
	cut := *cur
	cut.Root = top
	return toolResult(string(cut.AppendJSON(nil)), nil)
}

// rootMissing is the error of a ui_current root that is not in the
// answer. The source's Locate tells, from the id, whether this run
// issued it: a malformed or unissued id fails as ui_locate fails for it
// (even with locate not offered: only the id is asked about), any other
// id is gone from what the user sees, but for a browser that failed
// meanwhile. In a screen read (screen), an element that is not gone is
// off screen, and the page's answer has it.
func (s *Server) rootMissing(ctx context.Context, id string, screen bool) *sdk.CallToolResult {
	loc, err := s.src.Locate(ctx, id)
	switch {
	case errors.Is(err, mapping.ErrMalformedID), errors.Is(err, mapping.ErrNotIssued):
		return s.readError(CurrentURI, id, err).toolResult()
	case err != nil && !errors.Is(err, mapping.ErrCannotPlace):
		return s.browserError(CurrentURI, err).toolResult()
	case screen && (err != nil || loc.State != mapping.Gone):
		return failed(ReasonInvalidArguments, fmt.Sprintf("element %q is not on screen: call %s with root and scope %q "+
			"(the default) for it and what it holds", id, ToolCurrent, scopePage))
	}
	s.opts.Logger.Debug("root gone", "id", id)
	return failed(ReasonGone, fmt.Sprintf("element %q is not in what the user sees now: it was removed, its page navigated "+
		"away or closed, or it is no longer shown (its tab is in the background, or a budget left it out); call %s "+
		"without root for the elements of now", id, ToolCurrent))
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
