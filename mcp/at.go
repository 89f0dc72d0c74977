package mcp

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ui_at: what is at a point of the screen, in the screen points locate
// answers in: the innermost element the person would hit there, with its
// ancestors; or that the point is on a window's frame, or on no window.
// It is offered with the tools when locate is offered and the source can
// tell (a Pointer): it answers in the same coordinates as locate.

// ToolAt says what is at a point of the screen; it takes {"x": number,
// "y": number}.
const ToolAt = "ui_at"

// Pointer is a Source that can say what is at a point of the screen.
type Pointer interface {
	// At says what is at (x, y), in screen points: the element of the
	// answer of now there, by the page's own hit test.
	At(ctx context.Context, x, y float64) (*mapping.Hit, error)
}

// atUsage is the error of ui_at's arguments.
const atUsage = ToolAt + ` needs the point as {"x": number, "y": number}: screen points, as ` + ToolLocate + ` answers (the top-left of the primary screen is 0,0)`

// addAt adds ui_at when the source is a Pointer.
func (s *Server) addAt() {
	if _, ok := s.src.(Pointer); !ok {
		return
	}
	point := func(axis string) map[string]any {
		return map[string]any{"type": "number", "description": "The point's " + axis + " in screen points, as " + ToolLocate + " answers."}
	}
	s.mcp.AddTool(&sdk.Tool{
		Name:  ToolAt,
		Title: "The element at a point of the screen",
		Description: "What the user would hit at a point of the screen, in the screen points " + ToolLocate + " answers in: the innermost " +
			"element there, in the browser window on top at that point (the page's own hit test, through iframes), as a line of " +
			ToolCurrent + "'s outline with its id, then \"in:\" and the roles and titles of its ancestors. A point on a window's " +
			"tab strip, toolbar or border answers that window's frame; a point on no window of the browser says so. When the element " +
			"there is not the one answered (the answer's budget cut it, or the page's hit test failed), a note in parentheses says so " +
			"(naming the element cut, with its id). The result's " +
			"structuredContent has the same as {x, y, where: \"page\" | \"window-frame\" | \"none\", element: {id, role, title, value, " +
			"description, url, level, states, in: [{role, title}]}, note}. Which window is on top is the browser's focused window, then the " +
			"one activated last.",
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"x": point("x"), "y": point("y")},
			"required":             []string{"x", "y"},
			"additionalProperties": false,
		},
		OutputSchema: atOutputSchema,
		Annotations:  readOnly,
	}, s.callAt)
}

// atOutputSchema is the schema of ui_at's structuredContent,
// mapping.Hit.
var atOutputSchema = map[string]any{
	"type":     "object",
	"required": []string{"x", "y", "where"},
	"properties": map[string]any{
		"x": map[string]any{"type": "number"},
		"y": map[string]any{"type": "number"},
		"where": map[string]any{
			"enum":        []string{mapping.InPage, mapping.InWindowFrame, mapping.OffWindows},
			"description": "page: on a page, element is what is there; window-frame: on a window outside its page, element is the Window; none: on no window, no element.",
		},
		"element": findOutputSchema["properties"].(map[string]any)["matches"].(map[string]any)["items"],
		"note": map[string]any{
			"type":        "string",
			"description": "Why element is not the element at the point, when it is not: the answer's budget cut that one (named, with its id), the page's hit test failed, or none of the elements there is in the answer.",
		},
	},
}

// callAt answers ui_at.
func (s *Server) callAt(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args, bad := arguments(req, ToolAt, "x", "y")
	if bad != nil {
		return bad, nil
	}
	var x, y float64
	for name, v := range map[string]*float64{"x": &x, "y": &y} {
		raw, ok := args[name]
		if !ok || string(raw) == "null" || json.Unmarshal(raw, v) != nil || math.IsInf(*v, 0) {
			return failed(ReasonInvalidArguments, atUsage), nil
		}
	}
	h, err := s.src.(Pointer).At(ctx, x, y)
	if err != nil {
		return s.browserError(CurrentURI, err).toolResult(), nil
	}
	s.failMu.Lock()
	s.lastFailure = ""
	s.failMu.Unlock()
	var text strings.Builder
	mapping.WriteHit(&text, h) // a Builder never fails
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: text.String()}},
		StructuredContent: h,
	}, nil
}
