package cdp

import (
	"context"
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// The provider's isolated world: its name, its scripts (js/), evaluating
// them and describing the elements they return.

// worldName names the isolated world the provider reads pages in. The
// page's own scripts cannot see or change it.
const worldName = "cdpprovider"

// The scripts the provider runs in its isolated world of a page live in
// js/, one file each, embedded in the binary; the Go side names each one
// as a variable (stateScript, focusScript, …) whose comment says what it
// does and returns. A file's leading // lines say which variable it is
// and are not sent. A script names a Go-side value as {{name}}, the one
// way one is put in: the binding name, a script it includes (chain.js,
// page.js), a key. fill puts the values in and panics when a placeholder
// is left, so a script missing a value stops the program as it starts
// (every fixed script is filled at package initialisation), not a read.

//go:embed js/*.js
var jsFiles embed.FS

// jsTemplate returns a script of js/ without its leading comment lines.
func jsTemplate(file string) string {
	b, err := jsFiles.ReadFile("js/" + file)
	if err != nil {
		panic(fmt.Sprintf("cdp: script %s: %v", file, err))
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "//") {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// placeholder matches a {{name}} a script has left to fill.
var placeholder = regexp.MustCompile(`\{\{[A-Za-z]+\}\}`)

// fill puts values in a script's placeholders: pairs are name, value,
// name, value, …; {{name}} becomes value. It panics when a placeholder is
// left unfilled.
func fill(script string, pairs ...string) string {
	if len(pairs)%2 != 0 {
		panic("cdp: fill wants name, value pairs")
	}
	for i := 0; i < len(pairs); i += 2 {
		script = strings.ReplaceAll(script, "{{"+pairs[i]+"}}", pairs[i+1])
	}
	if left := placeholder.FindString(script); left != "" {
		panic("cdp: script placeholder " + left + " left unfilled")
	}
	return script
}

// objectGroups numbers the object groups of the remote objects the
// provider makes, so that scripts run side by side in one session do not
// release each other's objects.
var objectGroups atomic.Uint64

// newObjectGroup returns an object group of its own.
func newObjectGroup() string {
	return "cdpprovider-" + strconv.FormatUint(objectGroups.Add(1), 36)
}

// elementIDs runs expr, which returns an array of elements, in a frame's
// isolated world and returns the backend node ids of its elements from
// index from on, in order (0 for one that is not an element), all in the
// one call (evalItems).
func elementIDs(ctx context.Context, s *session, frame cdproto.FrameID, expr string, from int) []cdproto.BackendNodeID {
	items, err := evalItems(ctx, s, frame, expr)
	if err != nil || len(items) < from {
		return nil
	}
	ids := make([]cdproto.BackendNodeID, 0, len(items)-from)
	for _, it := range items[from:] {
		ids = append(ids, it.node())
	}
	return ids
}

// item is one item of an array a script returned, as Chrome's deep
// serialization gives it: a string's value, or an element's backend node
// id (and what else Chrome says of the node, which is not decoded).
type item struct {
	Type  string       `json:"type"`
	Value jsonv2.Value `json:"value"`
}

// node returns the backend node id of an item that is a node, else 0.
func (it item) node() cdproto.BackendNodeID {
	if it.Type != "node" {
		return 0
	}
	var n struct {
		BackendNodeID cdproto.BackendNodeID `json:"backendNodeId"`
	}
	if jsonv2.Unmarshal(it.Value, &n, chromedp.DefaultUnmarshalOptions) != nil {
		return 0
	}
	return n.BackendNodeID
}

// text returns the value of an item that is a string, else "".
func (it item) text() string {
	var v string
	if it.Type != "string" || jsonv2.Unmarshal(it.Value, &v, chromedp.DefaultUnmarshalOptions) != nil {
		return ""
	}
	return v
}

// deepItems is the serialization that gives an array's items with each
// element's backend node id, and nothing below them: Chrome's deep
// serialization (the one WebDriver BiDi's shared ids are made of), one
// level deep, no children or shadow roots of the nodes. So the elements a
// script finds are known in one call, not a DOM.describeNode each.
var deepItems = &runtime.SerializationOptions{
	Serialization:        runtime.SerializationOptionsSerializationDeep,
	MaxDepth:             ptr(int64(1)),
	AdditionalParameters: jsonv2.Value(`{"maxNodeDepth":0,"includeShadowTree":"none"}`),
}

// evalItems runs expr, which returns an array, in a frame's isolated
// world and returns its items (deepItems). The remote object Chrome keeps
// of the array is released without waiting.
func evalItems(ctx context.Context, s *session, frame cdproto.FrameID, expr string) ([]item, error) {
	group := newObjectGroup()
	defer s.releaseGroup(ctx, group)
	r, err := evalObjectThen(ctx, s, frame, expr, group, false, deepItems, nil)
	if err != nil {
		return nil, err
	}
	return itemsOf(r)
}

// releaseGroup releases the remote objects Chrome keeps in an object
// group, without waiting; even when the read ended first (a call whose
// context ended is not sent), and Chrome runs it after the scripts sent
// before it.
func (s *session) releaseGroup(ctx context.Context, group string) {
	s.Post(context.WithoutCancel(ctx), runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
}

// itemsOf returns the items of an array a script returned, serialized
// as deepItems says.
func itemsOf(r *runtime.RemoteObject) ([]item, error) {
	if r.DeepSerializedValue == nil || r.DeepSerializedValue.Type != "array" {
		return nil, fmt.Errorf("the script returned no array")
	}
	var items []item
	if err := jsonv2.Unmarshal(r.DeepSerializedValue.Value, &items, chromedp.DefaultUnmarshalOptions); err != nil {
		return nil, fmt.Errorf("the script's array: %w", err)
	}
	return items, nil
}

// world returns the context id of the provider's isolated world in a
// frame, making the world (Page.createIsolatedWorld returns the existing
// one of that name) when it is not known or fresh is set.
func (s *session) world(ctx context.Context, frame cdproto.FrameID, fresh bool) (runtime.ExecutionContextID, error) {
	id, ok := s.knownWorld(frame)
	if ok && !fresh {
		return id, nil
	}
	w, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: worldName})
	if err != nil {
		return 0, err
	}
	// The watchers of stateScript call this binding to say something
	// changed. Chrome adds it to the contexts of that name that exist, not
	// (without Runtime.enable) to later ones: so after each new world. The
	// calls after it run after it; its answer says nothing worth a round
	// trip (without it the watchers stay silent, and reads still work).
	if err := s.Post(ctx, runtime.CommandAddBinding, runtime.AddBindingParams{Name: bindingName, ExecutionContextName: worldName}); err != nil {
		return 0, err
	}
	s.worldsMu.Lock()
	if s.worlds == nil {
		s.worlds = map[cdproto.FrameID]runtime.ExecutionContextID{}
	}
	s.worlds[frame] = w.ExecutionContextID
	s.worldsMu.Unlock()
	return w.ExecutionContextID, nil
}

// evalIn evaluates a side-effect-free expression in the provider's
// isolated world of a frame and decodes its value into out.
func evalIn(ctx context.Context, s *session, frame cdproto.FrameID, expr string, out any) error {
	return evalInThen(ctx, s, frame, expr, out, nil)
}

// evalInThen is evalIn that calls then right after the expression is
// sent, before its answer (evalObject).
func evalInThen(ctx context.Context, s *session, frame cdproto.FrameID, expr string, out any, then func()) error {
	r, err := evalObjectThen(ctx, s, frame, expr, "", true, nil, then)
	if err != nil {
		return err
	}
	return jsonv2.Unmarshal(r.Value, out, chromedp.DefaultUnmarshalOptions)
}

// evalObject evaluates expr in the isolated world of frame. With byValue
// false the result stays a remote object in the object group. The world's
// context id is kept on the session; when the frame has navigated since,
// the world is made again once.
func evalObject(ctx context.Context, s *session, frame cdproto.FrameID, expr, group string, byValue bool) (*runtime.RemoteObject, error) {
	return evalObjectThen(ctx, s, frame, expr, group, byValue, nil, nil)
}

// evalObjectThen is evalObject that serializes the result as ser says
// (nil: as byValue says) and calls then (when not nil) right after
// each try of the expression is sent, before its answer: then may send
// the session commands that Chrome runs after the expression (Chrome runs
// a session's commands in the order they come), without a round trip
// between. When the expression is tried again (in a new world), then is
// called again after it, and what it sent after the first try must not
// be used.
func evalObjectThen(ctx context.Context, s *session, frame cdproto.FrameID, expr, group string, byValue bool, ser *runtime.SerializationOptions, then func()) (*runtime.RemoteObject, error) {
	for attempt := 0; ; attempt++ {
		w, err := s.world(ctx, frame, attempt > 0)
		if err != nil {
			return nil, err
		}
		reply := sendEval(ctx, s, w, expr, group, byValue, ser)
		if then != nil {
			then()
		}
		r := new(runtime.EvaluateResult)
		err = reply.Wait(ctx, r)
		if err != nil && attempt == 0 && ctx.Err() == nil {
			continue // most likely a context the navigation destroyed
		}
		if err != nil {
			return nil, err
		}
		return resultOf(r)
	}
}

// sendEval sends expr to the execution context w (an isolated world),
// without waiting for its answer: with byValue false the
// result stays a remote object in the object group; ser, when not nil,
// serializes it.
func sendEval(ctx context.Context, s *session, w runtime.ExecutionContextID, expr, group string, byValue bool, ser *runtime.SerializationOptions) *wire.Reply {
	return s.Send(ctx, runtime.CommandEvaluate, runtime.EvaluateParams{
		Expression:           expr,
		ContextID:            w,
		ReturnByValue:        ptr(byValue),
		ObjectGroup:          group,
		Silent:               ptr(true),
		SerializationOptions: ser,
	})
}

// resultOf is the result of an evaluation, or the exception it threw.
func resultOf(r *runtime.EvaluateResult) (*runtime.RemoteObject, error) {
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("script in the isolated world failed: %s", r.ExceptionDetails.Text)
	}
	return r.Result, nil
}

func ptr[T any](v T) *T { return &v }
