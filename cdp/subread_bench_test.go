package cdp

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/systeminfo"

	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// What a subscribed host's reads cost the page, command by command: the
// person of bench/peers/light.mjs (load, 1.5 s, Tab five times 150 ms
// apart, a wheel turn, 1.5 s) on generated pages of about 1,000 nodes,
// with a host that reads at every notification, one read at a time.
// It reports the commands sent to the page per read, by method (-v), and
// the renderer's CPU per page.
//
//	go test ./cdp/ -run '^$' -bench SubscribedReads -benchtime 1x -v
func BenchmarkSubscribedReads(b *testing.B) {
	pages := map[string]string{}
	const n = 4
	for i := range n {
		pages[fmt.Sprintf("/p%d", i)] = sectionsPage(fmt.Sprintf("Page %d", i), 110)
	}
	url := serve(b, pages)
	opts := Options{RestAfter: -1}
	if w := os.Getenv("CDPPROVIDER_WALKFROM"); w != "" {
		opts.WalkFrom, _ = strconv.Atoi(w)
	}
	ctx, p, u := launchFor(b, url+"/p0", opts)
	if _, err := p.Current(ctx); err != nil {
		b.Fatal(err)
	}
	h := &readingHost{ctx: ctx, p: p}
	if os.Getenv("CDPPROVIDER_UNREAD") == "" {
		stop := p.Watch(h.kick)
		defer stop()
	}
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	us := u.session(b, u.tabs[0])
	total := map[string]uint64{}
	var reads int
	var cpu time.Duration
	for range b.N {
		for i := range n + 1 {
			before, reads0, cpu0 := conn.Traffic(), h.reads(), rendererTime(b, u)
			u.navigate(b, us, 0, fmt.Sprintf("%s/p%d", url, (i+1)%n))
			browseLikeAPerson(b, ctx, us)
			h.idle(b)
			after := conn.Traffic()
			if i == 0 {
				continue // the first page: the provider's first work settles
			}
			cpu += rendererTime(b, u) - cpu0
			reads += h.reads() - reads0
			for m, c := range after.Calls {
				total[m] += c - before.Calls[m]
			}
		}
	}
	pagesRead := b.N * n
	var lines []string
	var sum uint64
	for _, m := range slices.Sorted(maps.Keys(total)) {
		if total[m] > 0 {
			lines = append(lines, fmt.Sprintf("%-40s %6d  %.2f a read", m, total[m], float64(total[m])/float64(max(reads, 1))))
			sum += total[m]
		}
	}
	b.Logf("%d pages, %d reads (%.1f a page), renderer %v a page; commands to the page:\n%s",
		pagesRead, reads, float64(reads)/float64(pagesRead), cpu/time.Duration(pagesRead), strings.Join(lines, "\n"))
	b.ReportMetric(float64(reads)/float64(pagesRead), "reads/page")
	b.ReportMetric(float64(sum)/float64(max(reads, 1)), "cmds/read")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(pagesRead), "renderer-ms/page")
	if os.Getenv("CDPPROVIDER_ANSWERS") != "" {
		b.Logf("answers: %v", p.Answers())
	}
}

// browseLikeAPerson is light.mjs's person after a load: 1.5 s, Tab five
// times 150 ms apart, one wheel turn of 600 px, 1.5 s.
func browseLikeAPerson(tb testing.TB, ctx context.Context, s *wire.Session) {
	tb.Helper()
	time.Sleep(1500 * time.Millisecond)
	for range 5 {
		pressTab(tb, ctx, s)
		time.Sleep(150 * time.Millisecond)
	}
	wheel(tb, ctx, s)
	time.Sleep(1500 * time.Millisecond)
}

// pressTab presses Tab in the page, as a person does.
func pressTab(tb testing.TB, ctx context.Context, s *wire.Session) {
	tb.Helper()
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdproto.Call(ctx, s, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9, NativeVirtualKeyCode: 9,
		}); err != nil {
			tb.Fatal(err)
		}
	}
}

// wheel turns the mouse wheel 600 px down over the page's middle.
func wheel(tb testing.TB, ctx context.Context, s *wire.Session) {
	tb.Helper()
	// (deltaX must be sent, and the params' struct leaves a zero out.)
	if err := s.Call(ctx, input.CommandDispatchMouseEvent, map[string]any{
		"type": input.DispatchMouseEventTypeMouseWheel, "x": 300, "y": 300, "deltaX": 0, "deltaY": 600,
	}, nil); err != nil {
		tb.Fatal(err)
	}
}

// rendererTime is the CPU time of the browser's renderer processes.
func rendererTime(tb testing.TB, u *user) time.Duration {
	tb.Helper()
	r, err := cdproto.Call(u.ctx, u.c.Browser(), systeminfo.GetProcessInfo, cdproto.Empty{})
	if err != nil {
		tb.Fatal(err)
	}
	var s float64
	for _, pi := range r.ProcessInfo {
		if pi.Type == "renderer" {
			s += pi.CPUTime
		}
	}
	return time.Duration(s * float64(time.Second))
}

// readingHost is a host subscribed to current that reads after every
// notification, one read at a time, once more when notifications came
// during a read (light.mjs's subscribed subject).
type readingHost struct {
	ctx context.Context
	p   *Provider

	mu             sync.Mutex
	reading, again bool
	n              int
	err            error
}

func (h *readingHost) kick() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reading {
		h.again = true
		return
	}
	h.reading = true
	go func() {
		for {
			h.mu.Lock()
			h.again = false
			h.mu.Unlock()
			_, err := h.p.Current(h.ctx)
			h.mu.Lock()
			h.n++
			if err != nil && h.err == nil {
				h.err = err
			}
			if !h.again {
				h.reading = false
				h.mu.Unlock()
				return
			}
			h.mu.Unlock()
		}
	}()
}

func (h *readingHost) reads() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// idle waits until the host reads no more.
func (h *readingHost) idle(tb testing.TB) {
	tb.Helper()
	if err := waitFor(h.ctx, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return !h.reading
	}); err != nil {
		tb.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		tb.Fatal(h.err)
	}
}

// The renderer's CPU per command of a read, on a page of about 1,000
// nodes: what each costs the page, alone.
//
//	go test ./cdp/ -run '^$' -bench ReadCommands -benchtime 1x -v
func BenchmarkReadCommands(b *testing.B) {
	url := serve(b, map[string]string{"/": sectionsPage("Commands", 110)})
	ctx, p, u := launchFor(b, url+"/", Options{RestAfter: -1, WalkFrom: 1 << 30})
	if _, err := p.Current(ctx); err != nil {
		b.Fatal(err)
	}
	s := sessionOf(b, p, u.tabs[0])
	frame := cdproto.FrameID(u.tabs[0])
	cost := func(name string, n int, f func()) {
		f()
		t0 := rendererTime(b, u)
		for range n {
			f()
		}
		b.Logf("%-28s %6.3f ms", name, float64(rendererTime(b, u)-t0)/float64(time.Millisecond)/float64(n))
	}
	cost("getFullAXTree", 20, func() { warm.FullAXTree(ctx, s, accessibility.GetFullAXTreeParams{}) })
	cdproto.Call(ctx, s, accessibility.Disable, cdproto.Empty{})
	cost("getFullAXTree, disabled", 20, func() { warm.FullAXTree(ctx, s, accessibility.GetFullAXTreeParams{}) })
	cdproto.Call(ctx, s, accessibility.Enable, cdproto.Empty{})
	cost("getFullAXTree, enabled", 20, func() { warm.FullAXTree(ctx, s, accessibility.GetFullAXTreeParams{}) })
	ax := warm.New(s, nil, nil)
	cost("warm walk", 5, func() {
		ax.Rest()
		ax = warm.New(s, nil, nil)
		if _, _, err := ax.Nodes(ctx, frame, "", readPageState(ctx, s, frame).activity()); err != nil {
			b.Fatal(err)
		}
		ax.StartWalks()
		if err := waitFor(ctx, func() bool { return ax.Walked(frame) }); err != nil {
			b.Fatal(err)
		}
	})
	cost("warm nodes, unchanged", 50, func() { ax.Nodes(ctx, frame, "", readPageState(ctx, s, frame).activity()) })
	cost("getPartialAXTree root", 100, func() {
		cdproto.Call(ctx, s, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{BackendNodeID: 1, FetchRelatives: ptr(false)})
	})
	cost("state script", 100, func() { readPageState(ctx, s, frame) })
	cost("focus chain", 100, func() { readChain(ctx, s, frame, focusChain) })
	cost("hover chain", 100, func() { readChain(ctx, s, frame, hoverChain) })
	cost("getFrameTree", 100, func() { frameTree(ctx, s) })
	cost("evaluate 1", 100, func() { var v int; evalIn(ctx, s, frame, "1", &v) })
	cost("current, unchanged", 30, func() { p.Current(ctx) })
	cost("walk", 3, func() {
		cdproto.Call(ctx, s, accessibility.Disable, cdproto.Empty{})
		cdproto.Call(ctx, s, accessibility.Enable, cdproto.Empty{})
		root, err := cdproto.Call(ctx, s, accessibility.GetRootAXNode, accessibility.GetRootAXNodeParams{})
		if err != nil {
			b.Fatal(err)
		}
		calls := 0
		next := []accessibility.NodeID{root.Node.NodeID}
		for len(next) > 0 {
			id := next[0]
			next = next[1:]
			r, err := cdproto.Call(ctx, s, accessibility.GetChildAXNodes, accessibility.GetChildAXNodesParams{ID: id})
			calls++
			if err != nil {
				continue
			}
			for _, n := range r.Nodes {
				if len(n.ChildIDs) > 0 && warm.Role(n) != "StaticText" {
					next = append(next, n.NodeID)
				}
			}
		}
		b.Logf("walk: %d calls", calls)
	})
}

// The first read after a rest, against a raw getFullAXTree made right
// after it (light.mjs's rested subject): for each page, the person loads
// it while the provider rests, then a host reads; the commands that read
// sends the page, by method (-v), and the read's time over the raw
// call's, median.
//
//	go test ./cdp/ -run '^$' -bench WakeRead -benchtime 1x -v
func BenchmarkWakeRead(b *testing.B) {
	pages := map[string]string{}
	const n = 6
	for i := range n {
		pages[fmt.Sprintf("/p%d", i)] = sectionsPage(fmt.Sprintf("Page %d", i), 20+i*30)
	}
	url := serve(b, pages)
	ctx, p, u := launchFor(b, url+"/p0", Options{RestAfter: 100 * time.Millisecond})
	if _, err := p.Current(ctx); err != nil {
		b.Fatal(err)
	}
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	us := u.session(b, u.tabs[0])
	total := map[string]uint64{}
	var ratios []float64
	reads := 0
	for range b.N {
		for i := range n {
			u.navigate(b, us, 0, fmt.Sprintf("%s/p%d", url, (i+1)%n))
			if err := waitFor(ctx, func() bool { r, _, _ := p.Resting(); return r }); err != nil {
				b.Fatal(err)
			}
			before := conn.Traffic()
			t0 := time.Now()
			if _, err := p.Current(ctx); err != nil {
				b.Fatal(err)
			}
			read := time.Since(t0)
			after := conn.Traffic()
			t0 = time.Now()
			if _, err := warm.FullAXTree(ctx, us, accessibility.GetFullAXTreeParams{}); err != nil {
				b.Fatal(err)
			}
			raw := time.Since(t0)
			ratios = append(ratios, float64(read)/float64(raw))
			reads++
			for m, c := range after.Calls {
				total[m] += c - before.Calls[m]
			}
			b.Logf("read %v, raw %v: %.2f", read.Round(100*time.Microsecond), raw.Round(100*time.Microsecond), float64(read)/float64(raw))
		}
	}
	var lines []string
	for _, m := range slices.Sorted(maps.Keys(total)) {
		if total[m] > 0 {
			lines = append(lines, fmt.Sprintf("%-40s %.2f a read", m, float64(total[m])/float64(reads)))
		}
	}
	slices.Sort(ratios)
	b.Logf("first read after rest ÷ raw, median %.2f; commands to the page:\n%s", ratios[len(ratios)/2], strings.Join(lines, "\n"))
	b.ReportMetric(ratios[len(ratios)/2], "read/raw")
}
