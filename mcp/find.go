package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ui_find: the elements of the answer of now that match a text and/or a
// role, in reading order, each with its ancestors and, when asked, its
// location. It reads current once, as ui_current does, and looks only at
// what that answer holds: a password field's value is never in it, so no
// text or expression can find one by what was typed into it.

// ToolFind finds elements of uicontext://current; it takes
// {"text": string, "regex": bool, "role": string, "limit": integer,
// "locate": bool} (locate only when locate is offered), text or role
// required.
const ToolFind = "ui_find"

// The limits of ui_find's matches.
const (
	findLimit    = 20  // the default
	MaxFindLimit = 200 // the most a call may ask for
)

// The errors of ui_find's arguments, each saying what the argument is.
var (
	findNeeds  = ToolFind + ` needs text, role or both: {"text": "…"} finds the elements whose title, value or description holds it, {"role": "Button"} the elements of that role`
	textUsage  = ToolFind + "'s text is a string: what to find in the elements' titles, values and descriptions"
	regexUsage = ToolFind + "'s regex is true or false: whether text is a regular expression"
	roleUsage  = ToolFind + "'s role is a string: a role name as " + ToolCurrent + " gives it, such as Button, Link or TextField"
	limitUsage = fmt.Sprintf("%s's limit is a whole number from 1 to %d: how many matches to list (default %d)", ToolFind, MaxFindLimit, findLimit)
	findLocate = ToolFind + "'s locate is true or false: whether to add where each match is on screen"
)

// addFind adds ui_find; its locate argument only when locate is offered.
func (s *Server) addFind() {
	props := map[string]any{
		"text": map[string]any{
			"type": "string",
			"description": "What to find in the elements' titles, values and descriptions: a substring, case ignored, " +
				"or with regex a regular expression (RE2 syntax, case ignored unless it starts with (?-i)).",
		},
		"regex": map[string]any{
			"type": "boolean", "default": false,
			"description": "Whether text is a regular expression rather than a plain substring.",
		},
		"role": map[string]any{
			"type": "string", "enum": mapping.Roles,
			"description": "Only elements of this role, spelled exactly as " + ToolCurrent + " gives it (Button, Link, TextField, Heading, …).",
		},
		"limit": map[string]any{
			"type": "integer", "minimum": 1, "maximum": MaxFindLimit, "default": findLimit,
			"description": fmt.Sprintf("How many matches to list, the first in reading order; how many more there are is said after them. At most %d.", MaxFindLimit),
		},
	}
	desc := "Find elements of what the user sees in their browser now, without reading the whole tree: those whose title, value " +
		"or description contains text (case ignored; with regex, matches a regular expression), and/or that have a role. Give text, " +
		"role or both. The matches come in reading order (the order of " + ToolCurrent + "'s tree), one a line as in " + ToolCurrent +
		"'s outline, in full (a Text too, and its url whole): " + `Role title = "value" [states] <url> level=N ("description") #id` + ", then \"in:\" and the roles and titles " +
		"of its ancestors, from the Application down. At most limit matches (default 20); a last line (+N more) counts the rest. " +
		"The result's structuredContent has the same as {matches: [{id, role, title, value, description, url, level, states, in: " +
		"[{role, title}]}], more}. The ids are " + ToolCurrent + "'s: give one to " + ToolCurrent + "'s root to read around it. " +
		"A password field's value is never reported, so it cannot be found by it."
	if s.opts.Locate {
		props["locate"] = map[string]any{
			"type": "boolean", "default": false,
			"description": "Also say where each match is on screen, as " + ToolLocate + " says it: after \" @ \" onscreen or offscreen with " +
				"its frame in screen points (x,y WIDTHxHEIGHT), gone, or cannot be placed (and why).",
		}
		desc += " With locate, each match also says where it is on screen, as " + ToolLocate + " does."
	}
	s.mcp.AddTool(&sdk.Tool{
		Name:        ToolFind,
		Title:       "Find elements the user sees",
		Description: desc,
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           props,
			"additionalProperties": false,
		},
		OutputSchema: findOutputSchema,
		Annotations:  readOnly,
	}, s.callFind)
}

// rectSchema is a rectangle in screen points (section 6).
var rectSchema = map[string]any{
	"type":     "object",
	"required": []string{"x", "y", "width", "height"},
	"properties": map[string]any{
		"x": map[string]any{"type": "number"}, "y": map[string]any{"type": "number"},
		"width": map[string]any{"type": "number"}, "height": map[string]any{"type": "number"},
	},
}

// findOutputSchema is the schema of ui_find's structuredContent,
// mapping.Found.
var findOutputSchema = map[string]any{
	"type":     "object",
	"required": []string{"matches", "more"},
	"properties": map[string]any{
		"matches": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type":     "object",
				"required": []string{"id", "role", "in"},
				"properties": map[string]any{
					"id":          map[string]any{"type": "string", "description": "The element's id, as " + ToolCurrent + " gives it."},
					"role":        map[string]any{"type": "string"},
					"title":       map[string]any{"type": "string"},
					"value":       map[string]any{"type": "string"},
					"description": map[string]any{"type": "string"},
					"url":         map[string]any{"type": "string"},
					"level":       map[string]any{"type": "integer"},
					"states":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"in": map[string]any{
						"type":        "array",
						"description": "The element's ancestors, the Application first.",
						"items": map[string]any{
							"type":       "object",
							"required":   []string{"role"},
							"properties": map[string]any{"role": map[string]any{"type": "string"}, "title": map[string]any{"type": "string"}},
						},
					},
					"location": map[string]any{
						"type":        "object",
						"description": "With locate: where the element is, as " + ToolLocate + " answers.",
						"required":    []string{"state"},
						"properties": map[string]any{
							"state":   map[string]any{"enum": []string{mapping.OnScreen, mapping.OffScreen, mapping.Gone}},
							"frame":   rectSchema,
							"visible": rectSchema,
						},
					},
					"unplaced": map[string]any{
						"type":        "string",
						"description": "With locate: why the element cannot be placed on screen (the why of cannot-be-placed).",
					},
				},
			},
		},
		"more": map[string]any{"type": "integer", "minimum": 0, "description": "How many more elements match than are listed."},
	},
}

// findQuery is what a ui_find call asks for.
type findQuery struct {
	search mapping.Search
	limit  int
	locate bool
}

// callFind answers ui_find: the matches of the answer of now, as lines
// and as structuredContent.
func (s *Server) callFind(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	names := []string{"text", "regex", "role", "limit"}
	if s.opts.Locate {
		names = append(names, "locate")
	}
	args, bad := arguments(req, ToolFind, names...)
	if bad != nil {
		return bad, nil
	}
	q, bad := findArguments(args)
	if bad != nil {
		return bad, nil
	}
	cur, herr := s.current(ctx, CurrentURI)
	if herr != nil {
		return herr.toolResult(), nil
	}
	found, more := q.search.Find(cur.Root, q.limit)
	if q.locate {
		for i := range found {
			id := found[i].Element.ID
			loc, err := s.src.Locate(ctx, id)
			switch {
			case errors.Is(err, mapping.ErrCannotPlace):
				found[i].Unplaced, _ = placeWhy(err)
			case err != nil: // the browser's failure
				return s.readError(locatePrefix+id, id, err).toolResult(), nil
			default:
				found[i].Location = loc
			}
		}
	}
	var text strings.Builder
	if len(found) == 0 {
		text.WriteString("No element matches.\n")
	}
	mapping.WriteMatches(&text, found, more) // a Builder never fails
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: text.String()}},
		StructuredContent: mapping.Found{Matches: found, More: more},
	}, nil
}

// findArguments checks ui_find's arguments, whose names arguments has
// checked, and returns the query, or the failed result that says what is
// wrong.
func findArguments(args map[string]json.RawMessage) (findQuery, *sdk.CallToolResult) {
	q := findQuery{limit: findLimit}
	var text string
	var regex bool
	if raw, ok := args["text"]; ok && (string(raw) == "null" || json.Unmarshal(raw, &text) != nil) {
		return q, failed(ReasonInvalidArguments, textUsage)
	}
	if raw, ok := args["regex"]; ok && (string(raw) == "null" || json.Unmarshal(raw, &regex) != nil) {
		return q, failed(ReasonInvalidArguments, regexUsage)
	}
	if raw, ok := args["role"]; ok {
		if string(raw) == "null" || json.Unmarshal(raw, &q.search.Role) != nil {
			return q, failed(ReasonInvalidArguments, roleUsage)
		}
		if !mapping.IsRole(q.search.Role) {
			return q, failed(ReasonInvalidArguments, unknownRole(q.search.Role))
		}
	}
	if raw, ok := args["limit"]; ok {
		if string(raw) == "null" || json.Unmarshal(raw, &q.limit) != nil || q.limit < 1 || q.limit > MaxFindLimit {
			return q, failed(ReasonInvalidArguments, limitUsage)
		}
	}
	if raw, ok := args["locate"]; ok && (string(raw) == "null" || json.Unmarshal(raw, &q.locate) != nil) {
		return q, failed(ReasonInvalidArguments, findLocate)
	}
	if text == "" && q.search.Role == "" {
		return q, failed(ReasonInvalidArguments, findNeeds)
	}
	if text != "" {
		p, err := mapping.TextPattern(text, regex)
		if err != nil {
			return q, failed(ReasonInvalidArguments, fmt.Sprintf("%s's text is not a regular expression (RE2 syntax): %v", ToolFind, err))
		}
		q.search.Text = p
	}
	return q, nil
}

// unknownRole is the error of a role that is not a protocol role: a few
// valid ones, and the one meant when only its case is wrong.
func unknownRole(role string) string {
	msg := fmt.Sprintf("%s's role %q is not a role %s gives", ToolFind, role, ToolCurrent)
	for _, r := range mapping.Roles {
		if strings.EqualFold(r, role) {
			return msg + fmt.Sprintf("; did you mean %q?", r)
		}
	}
	return msg + ": give one such as Button, Link, TextField, TextArea, CheckBox, ComboBox, Heading, Image or Dialog (the input schema lists them all)"
}
