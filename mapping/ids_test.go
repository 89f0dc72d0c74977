package mapping

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// unreserved is the id alphabet of 5.2.
var unreserved = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,128}$`)

// TestIDsRoundTrip makes an id of every kind, including extreme numbers,
// and parses it back.
func TestIDsRoundTrip(t *testing.T) {
	ids := NewIDs()
	refs := []Ref{
		{Kind: KindApp},
		{Kind: KindWindow, A: 1}, {Kind: KindTabList, A: 62}, {Kind: KindTab, A: 3843},
		{Kind: KindDocument, A: math.MaxInt64},
		{Kind: KindNode, A: 1, B: 0}, {Kind: KindNode, A: 7, B: 60001},
		{Kind: KindNode, A: 1 << 40, B: math.MaxInt64},
		{Kind: KindAXOnly, A: 2, B: -5}, {Kind: KindAXOnly, A: 2, B: math.MinInt64},
	}
	seen := map[string]bool{}
	for _, r := range refs {
		id := ids.Make(r)
		if !unreserved.MatchString(id) {
			t.Errorf("Make(%+v) = %q: not 1-128 URI-unreserved characters", r, id)
		}
		if seen[id] {
			t.Errorf("Make(%+v) = %q, issued twice", r, id)
		}
		seen[id] = true
		got, err := ids.Parse(id)
		if err != nil || got != r {
			t.Errorf("Parse(Make(%+v) = %q) = %+v, %v", r, id, got, err)
		}
	}
}

// TestIDsAreShort checks the length of the ids an answer is mostly made
// of: a node of the first 31 documents of a run on a page of up to
// 238,327 DOM nodes is 5 characters, and the document number costs one
// more character at 31 and 961 documents, not before.
func TestIDsAreShort(t *testing.T) {
	ids := NewIDs()
	for _, c := range []struct {
		doc     uint64
		backend int64
		want    int
	}{
		{1, 61, 3}, {3, 3843, 4}, {30, 238327, 5}, {31, 238327, 6}, {960, 238327, 6}, {961, 238327, 7},
	} {
		if id := ids.Node(c.doc, c.backend); len(id) != c.want {
			t.Errorf("Node(%d, %d) = %q, %d characters, want %d", c.doc, c.backend, id, len(id), c.want)
		}
	}
}

// TestDocNumbersEndThemselves writes document numbers around every length
// boundary and reads them back from the front of a longer string.
func TestDocNumbersEndThemselves(t *testing.T) {
	var ns []uint64
	for p := uint64(1); p < math.MaxUint64/docBase; p *= docBase {
		ns = append(ns, p-1, p, p+1, p*docBase-1)
	}
	ns = append(ns, math.MaxUint64, math.MaxUint64-1, 1<<63)
	for _, n := range ns {
		b := appendDoc(nil, n)
		got, rest, ok := cutDoc(string(b) + "Zz9")
		if !ok || got != n || rest != "Zz9" {
			t.Errorf("cutDoc(%q+\"Zz9\") = %d, %q, %v; want %d", b, got, rest, ok, n)
		}
	}
	for _, bad := range []string{"", "V1", "VV", "z", "zzzzzzzzzzzzz0", "zzzzzzzzzzzzU", "%1"} {
		if n, _, ok := cutDoc(bad); ok {
			t.Errorf("cutDoc(%q) = %d, want not a document number", bad, n)
		}
	}
}

// TestParseRejects checks that a string that is not an issued id is told
// apart: malformed, or well-formed and not issued (a wrong check, of
// another run, not canonical).
func TestParseRejects(t *testing.T) {
	ids, other := NewIDs(), NewIDs()
	node := ids.Node(1, 42)
	mac := node[len(node)-macChars:]
	flipped := node[:len(node)-1] + string(macDigits[(strings.IndexByte(macDigits, node[len(node)-1])+1)%len(macDigits)])
	for _, c := range []struct {
		id   string
		want error
	}{
		{"", ErrMalformedID},
		{"abcd", ErrMalformedID},
		{strings.Repeat("1", 129), ErrMalformedID},
		{"1G%", ErrMalformedID},
		{"1G.abc", ErrMalformedID},
		{"1G" + "A", ErrMalformedID},   // a check that is not a check character
		{"V1G" + mac, ErrMalformedID},  // a leading zero in the document
		{"10G" + mac, ErrMalformedID},  // a leading zero in the node
		{"1-0" + mac, ErrMalformedID},  // minus zero
		{"1G.H" + mac, ErrMalformedID}, // a separator
		{"1" + mac, ErrMalformedID},    // no node
		{".z1" + mac, ErrMalformedID},  // no such kind
		{".a1" + mac, ErrMalformedID},  // the Application has no number
		{"." + mac, ErrMalformedID},    // no kind
		{"~" + mac, ErrMalformedID},    // no document
		{"1zzzzzzzzzzzz" + mac, ErrMalformedID},
		{flipped, ErrNotIssued},
		{other.Node(2, 42), ErrNotIssued}, // another run's, of a document this one never had
		{"~" + node, ErrNotIssued},        // the same numbers, another kind
	} {
		if _, err := ids.Parse(c.id); !errors.Is(err, c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.id, err, c.want)
		}
	}
}

// TestParseKnowsWhatWasIssued checks the record: an id whose check is
// right but that this run never issued is not issued (a node next to
// an issued one, another document, a tab, an accessibility-only node);
// an element of a forgotten document is (its element is gone), but not
// an element of a document never issued, and forgetting drops the
// document's record.
func TestParseKnowsWhatWasIssued(t *testing.T) {
	ids := NewIDs()
	issued := []Ref{{Kind: KindNode, A: 3, B: 42}, {Kind: KindNode, A: 3, B: -7}, {Kind: KindNode, A: 3, B: lowNodes + 5},
		{Kind: KindAXOnly, A: 3, B: 900}, {Kind: KindTab, A: 2}, {Kind: KindDocument, A: 3}, {Kind: KindDialog, A: 9*8 + 1}}
	for _, r := range issued {
		ids.Make(r)
	}
	never := []Ref{{Kind: KindNode, A: 3, B: 43}, {Kind: KindNode, A: 3, B: 41}, {Kind: KindNode, A: 3, B: -8}, {Kind: KindNode, A: 3, B: lowNodes + 6},
		{Kind: KindNode, A: 4, B: 42}, {Kind: KindAXOnly, A: 3, B: 42}, {Kind: KindTab, A: 3}, {Kind: KindWindow, A: 2},
		{Kind: KindDocument, A: 4}, {Kind: KindDialog, A: 9*8 + 2}}
	check := func(when string, issuedNow []Ref) {
		t.Helper()
		for _, r := range issuedNow {
			if got, err := ids.Parse(ids.write(r)); err != nil || got != r {
				t.Errorf("%s: Parse of issued %+v = %+v, %v", when, r, got, err)
			}
		}
		for _, r := range never {
			if _, err := ids.Parse(ids.write(r)); !errors.Is(err, ErrNotIssued) {
				t.Errorf("%s: Parse of never issued %+v (its check right) = %v, want %v", when, r, err, ErrNotIssued)
			}
		}
	}
	check("before forgetting", issued)
	if n := ids.Remembered(); n != 1 {
		t.Errorf("the record holds the elements of %d documents, want 1", n)
	}
	ids.Forget(3)
	if n := ids.Remembered(); n != 0 {
		t.Errorf("after Forget(3) the record holds the elements of %d documents, want 0", n)
	}
	// Every element of document 3 is gone now, so any of its ids is
	// taken as issued; the others are as they were.
	never = slices.DeleteFunc(never, func(r Ref) bool { return r.A == 3 && (r.Kind == KindNode || r.Kind == KindAXOnly) })
	check("after forgetting", append(issued, Ref{Kind: KindNode, A: 3, B: 43}))
	ids.Node(3, 50) // a late mapping of the forgotten document records nothing
	if n := ids.Remembered(); n != 0 {
		t.Errorf("a node of a forgotten document recorded its document again: %d documents", n)
	}
}

// TestPeekReadsWithoutTheKey decodes ids of another run without its key.
func TestPeekReadsWithoutTheKey(t *testing.T) {
	ids := NewIDs()
	for _, r := range []Ref{{Kind: KindNode, A: 4, B: 9000}, {Kind: KindAXOnly, A: 40, B: -3}, {Kind: KindTab, A: 2}, {Kind: KindApp}} {
		if got, ok := Peek(ids.Make(r)); !ok || got != r {
			t.Errorf("Peek(%q) = %+v, %v; want %+v", ids.Make(r), got, ok, r)
		}
	}
}
