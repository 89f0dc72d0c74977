// Command axrecord loads a page in headless Chromium and saves its
// accessibility tree, and the trees of its same-process iframes, as a
// [mapping.Frame] in JSON: the input of the mapping package's golden tests.
//
//	go run ./mapping/internal/axrecord -o mapping/testdata/form.json \
//		-type '#pw=hunter2' -focus '#name' -hover 'button' mapping/testdata/form.html
//
// The argument is a URL or a local file. Flags, applied in this order:
// -type SELECTOR=TEXT (repeatable) types text into the first match,
// -focus SELECTOR focuses the first match, -hover SELECTOR moves the mouse to
// the centre of the first match. The browser is $CHROMIUM, else
// /usr/bin/chromium. Documents are numbered 1, 2, … in tree order. Focus is
// taken from the document roots' "focused" property; the hover chain is the
// main document's :hover elements, deepest first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// typings collects the repeatable -type flag.
type typings []string

func (t *typings) String() string     { return strings.Join(*t, ",") }
func (t *typings) Set(v string) error { *t = append(*t, v); return nil }

func main() {
	out := flag.String("o", "", "output `file` (default stdout)")
	focus := flag.String("focus", "", "CSS `selector` of the element to focus")
	hover := flag.String("hover", "", "CSS `selector` of the element to hover")
	var types typings
	flag.Var(&types, "type", "`SELECTOR=TEXT` to type into an element (repeatable)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: axrecord [flags] URL-or-file")
		flag.PrintDefaults()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *focus, *hover, types); err != nil {
		log.Fatal(err)
	}
}

func run(target, out, focus, hover string, types []string) error {
	u, err := pageURL(target)
	if err != nil {
		return err
	}
	execPath := os.Getenv("CHROMIUM")
	if execPath == "" {
		execPath = "/usr/bin/chromium"
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.WindowSize(1000, 2000))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx, cancel = chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	ctx, cancel = chromedp.NewContext(ctx)
	defer cancel()

	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		return fmt.Errorf("navigate: %w", err)
	}
	for _, t := range types {
		sel, text, ok := strings.Cut(t, "=")
		if !ok {
			return fmt.Errorf("-type %q: want SELECTOR=TEXT", t)
		}
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(sel), text+kb.End)); err != nil {
			return fmt.Errorf("type into %s: %w", sel, err)
		}
	}
	if focus != "" {
		if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(focus))); err != nil {
			return fmt.Errorf("focus %s: %w", focus, err)
		}
	}
	var chain []cdproto.BackendNodeID
	if hover != "" {
		if chain, err = hoverOver(ctx, hover); err != nil {
			return fmt.Errorf("hover %s: %w", hover, err)
		}
	}
	// Let Blink settle the accessibility tree after the last input.
	if err := chromedp.Do(ctx, chromedp.Sleep(200*time.Millisecond)); err != nil {
		return err
	}
	tree, err := chromedp.Call(ctx, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return fmt.Errorf("frame tree: %w", err)
	}
	var doc uint64
	f, err := record(ctx, tree.FrameTree, &doc)
	if err != nil {
		return err
	}
	if hover != "" {
		f.Pointer, f.Hover = true, chain
	}
	b, err := jsonv2.Marshal(f)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// pageURL returns target as a URL: an existing file becomes a file:// URL.
func pageURL(target string) (string, error) {
	if _, err := os.Stat(target); err != nil {
		if _, perr := url.ParseRequestURI(target); perr != nil {
			return "", fmt.Errorf("%s is neither a file nor a URL", target)
		}
		return target, nil
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: abs}).String(), nil
}

// record reads the tree of one frame and of its child frames.
func record(ctx context.Context, ft *page.FrameTree, doc *uint64) (*mapping.Frame, error) {
	*doc++
	ax, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: ft.Frame.ID})
	if err != nil {
		return nil, fmt.Errorf("AX tree of frame %s: %w", ft.Frame.ID, err)
	}
	if len(ax.Nodes) == 0 {
		return nil, errors.New("empty AX tree")
	}
	f := &mapping.Frame{Doc: *doc, URL: ft.Frame.URL, Nodes: ax.Nodes, HasFocus: rootFocused(ax.Nodes[0])}
	for _, child := range ft.ChildFrames {
		owner, err := chromedp.Call(ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: child.Frame.ID})
		if err != nil {
			return nil, fmt.Errorf("owner of frame %s: %w", child.Frame.ID, err)
		}
		cf, err := record(ctx, child, doc)
		if err != nil {
			return nil, err
		}
		if f.Frames == nil {
			f.Frames = map[cdproto.BackendNodeID]*mapping.Frame{}
		}
		f.Frames[owner.BackendNodeID] = cf
		f.HasFocus = f.HasFocus || cf.HasFocus
	}
	return f, nil
}

func rootFocused(n *accessibility.Node) bool {
	for _, p := range n.Properties {
		if p.Name == accessibility.PropertyNameFocused && p.Value != nil && string(p.Value.Value) == "true" {
			return true
		}
	}
	return false
}

// hoverOver moves the mouse to the centre of the first match of sel and
// returns the main document's hovered elements, deepest first.
func hoverOver(ctx context.Context, sel string) ([]cdproto.BackendNodeID, error) {
	box, err := chromedp.Run(ctx, chromedp.Dimensions(chromedp.CSS(sel)))
	if err != nil {
		return nil, err
	}
	q := box.Content
	x, y := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
	if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y}); err != nil {
		return nil, err
	}
	nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(":is(*):hover")))
	if err != nil {
		return nil, err
	}
	chain := make([]cdproto.BackendNodeID, len(nodes))
	for i, n := range nodes {
		chain[i] = n.BackendNodeID
	}
	slices.Reverse(chain)
	return chain, nil
}
