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

// The reasons of the errors this package words itself (7.2): the
// resource errors, and the tools' own. A browser's failure carries its
// reason in its error (Reason), as the cdp package's Failure does.
const (
	// ReasonNoSuchResource: a URI that matches no resource.
	ReasonNoSuchResource = "no-such-resource"
	// ReasonMalformed: a locate URI whose id is not of the form of 5.2.
	ReasonMalformed = "malformed"
	// ReasonNotIssued: a well-formed id this run of the provider never
	// issued.
	ReasonNotIssued = "not-issued"
	// ReasonCannotBePlaced: an element that exists but has no place on
	// screen; data.why says why (mapping.PlaceError's Why).
	ReasonCannotBePlaced = "cannot-be-placed"
	// ReasonNotSubscribable: a subscription to a resource other than
	// current, which sends no change notifications.
	ReasonNotSubscribable = "not-subscribable"
	// ReasonReadFailed: a failure of the browser whose error names no
	// reason of its own.
	ReasonReadFailed = "read-failed"
	// ReasonInvalidArguments: a tool called with arguments its schema
	// does not allow (tools only).
	ReasonInvalidArguments = "invalid-arguments"
	// ReasonGone: a root of ui_current that this run issued and that is
	// not in the answer read (tools only).
	ReasonGone = "gone"
)

// notFoundPrefix starts the message of every resource-not-found error.
const notFoundPrefix = "resource not found: "

// MetaError is the key of a failed tool result's _meta that holds the
// error's data, as a resource error's data: {"reason": …, "why": …}.
const MetaError = "uicontext/error"

// hostError is a failed read as a host is told it: the JSON-RPC error of
// a resource read, or the isError result of a tool. Both carry the same
// reason; their messages differ only where a resource's speaks of
// resources and a tool's of tools.
type hostError struct {
	code   int64  // jsonrpc.CodeInvalidParams (resource not found) or jsonrpc.CodeInternalError
	reason string // a Reason of this package, or of the browser's failure
	why    string // for ReasonCannotBePlaced: mapping.PlaceError's Why
	uri    string // the URI read
	msg    string // the message of the resource's error
	tool   string // the message of the tool's error
}

func (e *hostError) Error() string { return e.msg }

// errorData is the data of every error, but for the URI read, which a
// resource error's data has first: the reason, and for an element that
// cannot be placed, why.
type errorData struct {
	Reason string `json:"reason"`
	Why    string `json:"why,omitempty"`
}

// rpc is the JSON-RPC error of a resource read.
func (e *hostError) rpc() *jsonrpc.Error {
	// Always marshals: a struct of strings. The uri is always there, ""
	// included, for a host that reads data.uri.
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
		errorData
	}{e.uri, e.data()})
	return &jsonrpc.Error{Code: e.code, Message: e.msg, Data: data}
}

// toolResult is the failed result of a tool: one text item, the reason
// and the tool's message ("not-issued: element id …"), which a model
// reads, and the reason again in _meta for the host's code.
func (e *hostError) toolResult() *sdk.CallToolResult {
	res := failed(e.reason, e.tool)
	res.Meta[MetaError] = e.data()
	return res
}

func (e *hostError) data() errorData { return errorData{Reason: e.reason, Why: e.why} }

// readError turns the failure of a read of uri (about element id, for a
// locate URI) into the error the host gets (7.2). A URI that matches
// nothing, a malformed id, an id never issued and an element that cannot
// be placed are "resource not found", each with its reason and message;
// anything else is the browser's failure (browserError).
func (s *Server) readError(uri, id string, err error) *hostError {
	var e *hostError
	switch {
	case errors.Is(err, errNoResource):
		why := fmt.Sprintf("no resource matches %q; this provider has %s", uri, s.resourceURIs())
		e = notFound(uri, ReasonNoSuchResource, why, why)
	case errors.Is(err, mapping.ErrMalformedID):
		why := fmt.Sprintf("malformed element id %q: an id is 1 to 128 characters of A-Z a-z 0-9 . _ ~ -", id)
		e = notFound(uri, ReasonMalformed, why, why+"; give an id exactly as "+ToolCurrent+" gave it")
	case errors.Is(err, mapping.ErrNotIssued):
		why := fmt.Sprintf("element id %q was not issued by this run of the provider", id)
		e = notFound(uri, ReasonNotIssued,
			why+": read "+CurrentURI+" for the ids of this run",
			why+": call "+ToolCurrent+" for the ids of this run")
	case errors.Is(err, mapping.ErrCannotPlace):
		place, because := placeWhy(err)
		why := fmt.Sprintf("element %q cannot be placed on screen: %s", id, because)
		e = notFound(uri, ReasonCannotBePlaced, why, why)
		e.why = place
	default:
		return s.browserError(uri, err)
	}
	s.opts.Logger.Debug("resource not found", "uri", uri, "reason", e.reason, "why", e.msg, "err", err)
	return e
}

// notFound is a resource-not-found error of uri: msg after the prefix for
// the resource, tool for the tool.
func notFound(uri, reason, msg, tool string) *hostError {
	return &hostError{code: jsonrpc.CodeInvalidParams, reason: reason, uri: uri, msg: notFoundPrefix + msg, tool: tool}
}

// placeWhy says why an element cannot be placed: the stable word, and a
// sentence for the message.
func placeWhy(err error) (why, because string) {
	why = mapping.PlaceNoGeometry
	var cause error
	if pe := (*mapping.PlaceError)(nil); errors.As(err, &pe) {
		why, cause = pe.Why, pe.Err
	}
	switch why {
	case mapping.PlaceApplication:
		return why, "the Application is the browser itself and has no place on screen of its own; its Windows have places"
	case mapping.PlaceTabList:
		return why, "the tab strip is drawn by the browser and has no place on screen of its own"
	case mapping.PlaceTab:
		return why, "a Tab has no place on screen of its own; the Document it shows has one while it is its window's active tab"
	case mapping.PlaceDialog:
		return why, "a JavaScript dialog is drawn by the browser, not by the page, and has no box to measure"
	case mapping.PlaceCrashed:
		return why, "its page crashed, and its Document has nothing to measure"
	case mapping.PlaceWindowUnknown:
		return why, "the browser did not say which window its tabs are in, so it stands for no window on screen"
	case mapping.PlaceNotAnswering:
		msg := "its page cannot be asked now"
		if cause != nil {
			msg += " (" + cause.Error() + ")"
		}
		return why, msg + "; try again once it answers"
	}
	return why, "it has no box of its own (an element the accessibility tree adds, without a DOM node)"
}

// reasoned is the error of a browser's failure that names its reason: the
// cdp package's Failure is one.
type reasoned interface {
	error
	Reason() string
}

// browserError is the error of a read that failed for the browser's
// sake: it could not be reached, asks its person, or failed mid-read. Its
// reason and message are those of the first error in err's chain that
// has a Reason (its message says what happened and what the person can
// do; what wraps it is the provider's own); without one, the reason is
// read-failed and the message err's. The log says
// each failure once: the same failure again (a browser still down, still
// asking its person) is logged at debug level only.
func (s *Server) browserError(uri string, err error) *hostError {
	msg, reason := err.Error(), ReasonReadFailed
	if r := reasoned(nil); errors.As(err, &r) && r.Reason() != "" {
		msg, reason = r.Error(), r.Reason()
	}
	s.failMu.Lock()
	again := msg == s.lastFailure
	s.lastFailure = msg
	s.failMu.Unlock()
	level := slog.LevelWarn
	if again {
		level = slog.LevelDebug
	}
	s.opts.Logger.Log(context.Background(), level, "read failed", "uri", uri, "reason", reason, "err", msg)
	return &hostError{code: jsonrpc.CodeInternalError, reason: reason, uri: uri, msg: msg, tool: msg}
}

// subscribeError is the error of a subscription (or its end) to uri, or
// nil when uri is current. A URI that names no resource, or a malformed
// locate id, is resource not found as for a read; a resource that exists
// but sends no notifications is not-subscribable, whose message does not
// start with "resource not found": the resource is there to be read.
func (s *Server) subscribeError(uri string) error {
	if uri == CurrentURI || uri == ScreenURI {
		return nil
	}
	if id, err := route(uri, s.opts.Locate); err != nil {
		return s.readError(uri, id, err).rpc()
	}
	because := "a location is read when it is needed"
	if uri == DescriptorURI {
		because = "the descriptor never changes while the provider runs"
	}
	msg := fmt.Sprintf("%s cannot be subscribed to: %s; only %s and %s send change notifications", uri, because, CurrentURI, ScreenURI)
	e := &hostError{code: jsonrpc.CodeInvalidParams, reason: ReasonNotSubscribable, uri: uri, msg: msg}
	s.opts.Logger.Debug("not subscribable", "uri", uri)
	return e.rpc()
}

// resourceURIs lists what a read may ask for, for the message of an
// unknown URI.
func (s *Server) resourceURIs() string {
	uris := []string{CurrentURI, ScreenURI, DescriptorURI}
	if s.opts.Locate {
		uris = append(uris, LocateTemplate)
	}
	return strings.Join(uris, ", ")
}
