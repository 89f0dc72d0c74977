package warm

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// stripped is a node as cdproto decodes it, without what slimNode leaves
// out.
func stripped(n *accessibility.Node) *accessibility.Node {
	c := *n
	c.IgnoredReasons = nil
	for _, v := range []**accessibility.Value{&c.Role, &c.ChromeRole, &c.Name, &c.Description, &c.Value} {
		if *v != nil {
			*v = &accessibility.Value{Type: (*v).Type, Value: (*v).Value}
		}
	}
	c.Properties = nil
	for _, p := range n.Properties {
		q := *p
		if q.Value != nil {
			q.Value = &accessibility.Value{Type: q.Value.Type, Value: q.Value.Value}
		}
		c.Properties = append(c.Properties, &q)
	}
	return &c
}

// The streaming decoder answers what cdproto's decoding answers, on the
// recorded trees of real pages (sources, related nodes and all) and on
// the odd shapes a node can take.
func TestSlimNodeDecodes(t *testing.T) {
	inputs := recordedTrees(t)
	if len(inputs) < 5 {
		t.Fatalf("only %d recorded trees", len(inputs))
	}
	inputs = append(inputs,
		`{"nodes":[]}`,
		`{"nodes":[{"nodeId":"1","ignored":true,"ignoredReasons":[{"name":"uninteresting","value":{"type":"boolean","value":true}}],"role":{"type":"role","value":"none"},"childIds":["2","-3"],"backendDOMNodeId":7,"frameId":"F1","unknown":{"deep":[1,{"x":null}]}}]}`,
		`{"nodes":[{"nodeId":"a\"b\\u00e9","ignored":false,"name":{"type":"computedString","value":"say \"hi\"\n","sources":[{"type":"contents","value":{"type":"computedString","value":"x"}}]},"value":{"type":"number","value":42.5},"properties":[{"name":"level","value":{"type":"integer","value":2}},{"name":"checked","value":{"type":"tristate","value":"mixed"}},{"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"backendDOMNodeId":9,"idref":"l"}]}}],"parentId":"0"}]}`,
		`{"nodes":[{"nodeId":"1","ignored":false,"role":null,"name":{"type":"computedString"},"properties":null,"childIds":null}]}`,
		`{"extra":1,"nodes":[{"childIds":[],"nodeId":"2","ignored":false,"description":{"value":"d","type":"computedString"}}]}`,
	)
	for i, in := range inputs {
		var want accessibility.GetFullAXTreeResult
		if err := jsonv2.Unmarshal([]byte(in), &want, chromedp.DefaultUnmarshalOptions); err != nil {
			t.Fatalf("input %d: cdproto: %v", i, err)
		}
		var got slimNodes
		if err := jsonv2.Unmarshal([]byte(in), &got, chromedp.DefaultUnmarshalOptions); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		wantNodes := make([]*accessibility.Node, len(want.Nodes))
		for j, n := range want.Nodes {
			wantNodes[j] = stripped(n)
		}
		if d := cmp.Diff(wantNodes, got.nodes(), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("input %d (%d nodes) decodes differently (-cdproto +slim):\n%s", i, len(wantNodes), d)
		}
	}
}

// Malformed JSON is an error, never a panic or a loop.
func TestSlimNodeRejectsMalformed(t *testing.T) {
	for _, in := range []string{
		`{"nodes":[{"nodeId":1}]}`,
		`{"nodes":[{"nodeId":"1","childIds":{}}]}`,
		`{"nodes":[{"nodeId":"1","role":[]}]}`,
		`{"nodes":[{"nodeId":"1","properties":[{"name":"x","value":{"type":"string","value":"y"}]}]}`,
		`{"nodes":[{"nodeId":"1"`,
		`{"nodes":[["1"]]}`,
		`{"nodes":[{"nodeId":"1","ignored":false,}]}`,
	} {
		var got slimNodes
		if err := jsonv2.Unmarshal([]byte(in), &got, chromedp.DefaultUnmarshalOptions); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

// The short values that recur across a page's nodes, and the properties
// with them, are decoded once and shared; a long value (a name, mostly)
// is each node's own.
func TestShortValuesAreShared(t *testing.T) {
	node := func(id, name string) string {
		return `{"nodeId":"` + id + `","ignored":false,"role":{"type":"role","value":"button"},"chromeRole":{"type":"internalRole","value":9},` +
			`"name":{"type":"computedString","value":"` + name + `"},"properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},` +
			`{"name":"level","value":{"type":"integer","value":2}}]}`
	}
	long := strings.Repeat("a long name, longer than any shared value ", 2)
	in := `{"nodes":[` + node("1", long) + `,` + node("2", long) + `,` + node("3", "Go") + `,` + node("4", "Go") + `]}`
	var got slimNodes
	if err := jsonv2.Unmarshal([]byte(in), &got, chromedp.DefaultUnmarshalOptions); err != nil {
		t.Fatal(err)
	}
	n := got.nodes()
	if n[0].Role != n[1].Role || n[0].Role != n[3].Role || n[0].ChromeRole != n[2].ChromeRole {
		t.Error("the nodes' roles are not shared")
	}
	if n[2].Name != n[3].Name {
		t.Error("the short names are not shared")
	}
	if n[0].Name == n[1].Name {
		t.Error("a long name is shared")
	}
	if string(n[1].Name.Value) != `"`+long+`"` {
		t.Errorf("the long name decoded as %s", n[1].Name.Value)
	}
	for i := range 2 {
		if n[0].Properties[i] != n[3].Properties[i] {
			t.Errorf("property %s is not shared", n[0].Properties[i].Name)
		}
	}
	if n[0].Properties[0].Name != "focusable" || string(n[0].Properties[1].Value.Value) != "2" {
		t.Errorf("the properties decoded as %s=%s, %s=%s", n[0].Properties[0].Name, n[0].Properties[0].Value.Value,
			n[0].Properties[1].Name, n[0].Properties[1].Value.Value)
	}

	// A long session's many values: the table stays bounded, and values
	// are still shared after it fills.
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := range maxShared + 10 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(node(strconv.Itoa(i), "name "+strconv.Itoa(i)))
	}
	b.WriteString(`]}`)
	if err := jsonv2.Unmarshal([]byte(b.String()), &got, chromedp.DefaultUnmarshalOptions); err != nil {
		t.Fatal(err)
	}
	shared.mu.RLock()
	size := len(shared.vals)
	shared.mu.RUnlock()
	if size > maxShared {
		t.Errorf("%d shared values, more than %d", size, maxShared)
	}
	after := `{"nodes":[` + node("a", "Fresh") + `,` + node("b", "Fresh") + `]}`
	if err := jsonv2.Unmarshal([]byte(after), &got, chromedp.DefaultUnmarshalOptions); err != nil {
		t.Fatal(err)
	}
	if n := got.nodes(); n[0].Name != n[1].Name {
		t.Error("a value new once the table has filled is not shared")
	}
}

// BenchmarkSlimDecode decodes the recorded trees of real pages as a read
// does (go test -bench SlimDecode -benchmem ./cdp/warm/).
func BenchmarkSlimDecode(b *testing.B) {
	var inputs [][]byte
	size := 0
	for _, in := range recordedTrees(b) {
		inputs = append(inputs, []byte(in))
		size += len(in)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, in := range inputs {
			var got slimNodes
			if err := jsonv2.Unmarshal(in, &got, chromedp.DefaultUnmarshalOptions); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// recordedTrees returns the recorded trees of real pages in
// mapping/testdata, each as the result of a call that answers with nodes.
func recordedTrees(tb testing.TB) []string {
	tb.Helper()
	recs, err := filepath.Glob("../../mapping/testdata/*.json")
	if err != nil {
		tb.Fatal(err)
	}
	var trees []string
	for _, rec := range recs {
		if strings.HasSuffix(rec, ".golden.json") {
			continue
		}
		raw, err := os.ReadFile(rec)
		if err != nil {
			tb.Fatal(err)
		}
		var f struct{ Nodes jsonv2.Value }
		if err := jsonv2.Unmarshal(raw, &f, chromedp.DefaultUnmarshalOptions); err != nil {
			tb.Fatalf("%s: %v", rec, err)
		}
		trees = append(trees, `{"nodes":`+string(f.Nodes)+`}`)
	}
	return trees
}
