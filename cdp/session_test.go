package cdp

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
)

// heldFetch is a warm.Caller whose getFullAXTree calls after the first
// wait for release.
type heldFetch struct {
	mu      sync.Mutex
	fetches int
	asked   chan struct{}
	release chan struct{}
}

func (h *heldFetch) Call(ctx context.Context, method string, params, res any) error {
	answer := `{}`
	switch method {
	case "Accessibility.getFullAXTree":
		h.mu.Lock()
		h.fetches++
		n := h.fetches
		h.mu.Unlock()
		if n > 1 {
			close(h.asked)
			<-h.release
		}
		answer = `{"nodes":[{"nodeId":"1","ignored":false,"role":{"type":"role","value":"RootWebArea"},"backendDOMNodeId":10}]}`
	case "Accessibility.getRootAXNode":
		return errors.New("no walks in this test")
	}
	return jsonv2.Unmarshal([]byte(answer), res, chromedp.DefaultUnmarshalOptions)
}

// A page busy with the provider's own getFullAXTree of a document that
// just loaded is busy for its health (wire.Session.FirstCall waits for
// it): the session's warm trees say so while the fetch goes on.
func TestFetchingLoadedIsTheFetchAfterALoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &session{}
		if s.fetchingLoaded() {
			t.Fatal("a session without warm trees is busy")
		}
		h := &heldFetch{asked: make(chan struct{}), release: make(chan struct{})}
		defer close(h.release) // before the bubble ends, even when the test fails
		a := warm.New(h, nil, nil)
		a.Loaded = func(ctx context.Context, frame cdproto.FrameID) (cdproto.LoaderID, warm.Activity, error) {
			return "L2", warm.Activity{OK: true}, nil
		}
		s.ax.Store(a)
		if _, _, err := a.Nodes(context.Background(), "F", "L1", warm.Activity{OK: true}); err != nil { // a read
			t.Fatal(err)
		}
		if s.fetchingLoaded() {
			t.Fatal("busy before any document loaded")
		}
		a.OnEvent("Accessibility.loadComplete", jsonv2.Value(`{"root":{"nodeId":"1","ignored":false,"frameId":"F"}}`))
		<-h.asked
		if !s.fetchingLoaded() {
			t.Fatal("the fetch of the document that loaded is under way, and the session is not busy")
		}
	})
}
