package mapping

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// OverBudget reports whether applyBudget would cut the tree under root:
// whether it has more than b.MaxElements elements or its compact JSON is
// longer than b.MaxBytes. It lets a caller gather what only a cut needs
// (the elements on screen) only when there will be one. Its cost is one
// pass over the tree, measuring each element without encoding it and
// allocating nothing (every read asks it, of every element), stopped as
// soon as the tree is over.
func OverBudget(root *Element, b Budget) bool { return overBudget(root, b, nil) }

// A BudgetCache answers OverBudget, keeping the measure of each Document
// element for the next read: a document unchanged since the read before
// is the same element (Frame.Mapped), and an element is never changed
// once an answer holds it (ApplyBudgetOnScreen copies what it cuts), so
// its measure is taken again rather than made (the first walk's, which
// nearly every read ends with). It keeps those of the last read only, in
// a map of the answer's Documents, its one allocation. The zero value is
// ready; it is not safe for concurrent use.
type BudgetCache struct {
	sizes map[*Element]measured
	taken int // Documents whose measure was taken again so far, for tests
}

// measured is what a subtree adds to a measure.
type measured struct{ count, size int }

// Taken is how many Documents' measures bc took from the read before: for
// tests and benchmarks, which check that the cache answered.
func (bc *BudgetCache) Taken() int { return bc.taken }

// OverBudget is [OverBudget], with the measures of the Documents of the
// read before.
func (bc *BudgetCache) OverBudget(root *Element, b Budget) bool { return overBudget(root, b, bc) }

// overBudget is OverBudget, with the Documents' measures of bc when it is
// not nil.
func overBudget(root *Element, b Budget, bc *BudgetCache) bool {
	if root == nil {
		return false
	}
	// A first walk bounds the JSON by the strings' lengths, without
	// reading them (JSON writes a byte as 6 at most: \u003c): a tree
	// within the bound, as nearly every page is, is within the budget.
	m := measure{b: b, strLen: jsonStringBound}
	if bc != nil {
		m.cache, m.next = bc, map[*Element]measured{}
	}
	over := m.over(root)
	if bc != nil {
		bc.sizes = m.next
	}
	if !over {
		return false
	}
	if b.MaxElements > 0 && m.count > b.MaxElements {
		return true
	}
	m = measure{b: b, strLen: jsonStringLen}
	return m.over(root)
}

// measure counts the elements and the compact JSON bytes of a tree, as
// flatTree.over does, against a budget; strLen measures a string.
type measure struct {
	b           Budget
	strLen      func(string) int
	count, size int
	// cache holds the Documents' measures of the read before, and next
	// gathers this read's (nil: none kept).
	cache *BudgetCache
	next  map[*Element]measured
}

// over adds e and its subtree, and reports whether the tree measured so
// far exceeds the budget: then it stops.
func (m *measure) over(e *Element) bool {
	if m.next == nil || e.Role != roleDocument {
		return m.overOwn(e)
	}
	if d, ok := m.cache.sizes[e]; ok {
		m.cache.taken++
		m.next[e] = d
		m.count += d.count
		m.size += d.size
		return m.b.MaxElements > 0 && m.count > m.b.MaxElements || m.b.MaxBytes > 0 && m.size > m.b.MaxBytes
	}
	count, size := m.count, m.size
	if m.overOwn(e) {
		return true
	}
	m.next[e] = measured{m.count - count, m.size - size}
	return false
}

// overOwn is over, measuring e itself.
func (m *measure) overOwn(e *Element) bool {
	m.count++
	if m.b.MaxElements > 0 && m.count > m.b.MaxElements {
		return true
	}
	if m.b.MaxBytes > 0 {
		m.size += ownSizeBy(e, m.strLen)
		if e.Omitted > 0 {
			m.size += omittedField + len(strconv.Itoa(e.Omitted))
		}
		if len(e.Children) > 0 {
			m.size += childrenField + len(e.Children) - 1
		}
		if m.size > m.b.MaxBytes {
			return true
		}
	}
	for _, c := range e.Children {
		if m.over(c) {
			return true
		}
	}
	return false
}

// applyBudget cuts the tree under root when it has more than
// b.MaxElements elements or its compact JSON is longer than b.MaxBytes (a
// limit below 1 is no limit; see [OverBudget]). It keeps, in this order
// and each with its ancestors: the elements on the focus path, the hovered
// element, the selected elements, the elements of onScreen (each with its
// Text children, what a person reads of it), then the rest in reading
// order (a prefix of the preorder). Each kept element whose children were
// cut gets, in Omitted, the number of elements cut directly below it (the
// cut children, their descendants and what their subtrees had omitted
// already), added to any count it had. The root is always kept.
// The root is changed in place; an element below it that changes is
// replaced by a copy, so that the elements it was given are left as they
// were (they may be shared with an earlier answer). The cost is linear in
// the size of the tree. It reports whether it cut anything.
// [ApplyBudgetOnScreen] is how the provider calls it; the tests call it
// with onScreen nil.
func applyBudget(root *Element, b Budget, onScreen map[*Element]bool) bool {
	if root == nil {
		return false
	}
	t := flatten(root)
	if !t.over(b) {
		return false
	}
	k := &keeper{tree: t, b: b, kept: make([]bool, len(t.elems)), hasKids: make([]bool, len(t.elems))}
	k.kept[0] = true
	k.count, k.size = 1, t.own[0]+t.reserve(0)
	for _, state := range []string{"focused", "hovered", "selected"} {
		for i, e := range t.elems {
			if slices.Contains(e.States, state) {
				k.keep(i)
			}
		}
	}
	if len(onScreen) > 0 {
		for i, e := range t.elems {
			if !onScreen[e] || !k.keep(i) {
				continue
			}
			for j, c := i+1, 0; c < len(e.Children); j, c = j+1+t.desc[j], c+1 {
				if e.Children[c].Role == roleText {
					k.keep(j)
				}
			}
		}
	}
	for i := range t.elems {
		if !k.keep(i) {
			break
		}
	}
	k.cut()
	return true
}

// flatTree is a tree in preorder.
type flatTree struct {
	elems  []*Element
	parent []int // index of the parent; -1 for the root
	own    []int // JSON bytes of the element without children and omitted
	desc   []int // number of descendants
	omit   []int // sum of the omitted counts in the subtree
}

func flatten(root *Element) *flatTree {
	t := &flatTree{}
	type item struct {
		e      *Element
		parent int
	}
	stack := []item{{root, -1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t.elems = append(t.elems, it.e)
		t.parent = append(t.parent, it.parent)
		t.own = append(t.own, ownSize(it.e))
		i := len(t.elems) - 1
		for j := len(it.e.Children) - 1; j >= 0; j-- {
			stack = append(stack, item{it.e.Children[j], i})
		}
	}
	t.desc = make([]int, len(t.elems))
	t.omit = make([]int, len(t.elems))
	for i := len(t.elems) - 1; i >= 0; i-- {
		t.omit[i] += t.elems[i].Omitted
		if p := t.parent[i]; p >= 0 {
			t.desc[p] += 1 + t.desc[i]
			t.omit[p] += t.omit[i]
		}
	}
	return t
}

// ownSize returns the length of e's compact JSON without its children and
// omitted count, as encoding/json writes it (TestOwnSize holds it to
// that), without encoding: every read measures every element.
func ownSize(e *Element) int { return ownSizeBy(e, jsonStringLen) }

// ownSizeBy is ownSize with the strings measured by strLen.
func ownSizeBy(e *Element, strLen func(string) int) int {
	n := len(`{"id":,"role":}`) + strLen(e.ID) + strLen(e.Role)
	for _, f := range [...]struct {
		key   int
		value string
	}{{len(`,"title":`), e.Title}, {len(`,"value":`), e.Value}, {len(`,"description":`), e.Description}, {len(`,"url":`), e.URL}} {
		if f.value != "" {
			n += f.key + strLen(f.value)
		}
	}
	if e.Level != 0 {
		n += len(`,"level":`) + len(strconv.Itoa(e.Level))
	}
	if len(e.States) > 0 {
		n += len(`,"states":[]`) + len(e.States) - 1
		for _, st := range e.States {
			n += strLen(st)
		}
	}
	return n
}

// jsonStringLen returns the length of s as a JSON string the way
// encoding/json writes it, quotes included.
func jsonStringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b < 0x20, b == '"', b == '\\', b == '<', b == '>', b == '&':
			return escapedLen(s)
		case b >= utf8.RuneSelf:
			// Non-ASCII is written as it is, unless invalid or a line or
			// paragraph separator (escaped for JavaScript).
			if !utf8.ValidString(s[i:]) || strings.Contains(s[i:], "\u2028") || strings.Contains(s[i:], "\u2029") {
				return escapedLen(s)
			}
			return len(s) + 2
		}
	}
	return len(s) + 2
}

// jsonStringBound is the most jsonStringLen can be for a string of s's
// length: each byte escaped as \u00XX (a control character, <, >, &, a
// byte of invalid UTF-8), quotes included. (A line or paragraph
// separator, 3 bytes, is escaped as 6.)
func jsonStringBound(s string) int { return 6*len(s) + 2 }

// escapedLen encodes s to measure it.
func escapedLen(s string) int {
	b, err := json.Marshal(s)
	if err != nil {
		return len(s) + 2 // a string always marshals
	}
	return len(b)
}

// omittedField is the JSON an omitted count adds, before its digits.
const omittedField = len(`,"omitted":`)

// childrenField is the JSON a non-empty children array adds, without the
// children and the commas between them.
const childrenField = len(`,"children":[]`)

// over reports whether the tree exceeds the budget.
func (t *flatTree) over(b Budget) bool {
	if b.MaxElements > 0 && len(t.elems) > b.MaxElements {
		return true
	}
	if b.MaxBytes < 1 {
		return false
	}
	size := 0
	for i, e := range t.elems {
		size += t.own[i]
		if e.Omitted > 0 {
			size += omittedField + len(strconv.Itoa(e.Omitted))
		}
		if len(e.Children) > 0 {
			size += childrenField + len(e.Children) - 1
		}
	}
	return size > b.MaxBytes
}

// reserve returns the bytes kept aside for the omitted count element i
// may get: at most its descendants and the counts in its subtree.
func (t *flatTree) reserve(i int) int {
	n := t.desc[i] + t.omit[i]
	if n == 0 {
		return 0
	}
	return omittedField + len(strconv.Itoa(n))
}

// keeper chooses the elements to keep.
type keeper struct {
	tree    *flatTree
	b       Budget
	kept    []bool
	hasKids []bool // a child of the element is kept
	count   int
	size    int // JSON bytes of the kept tree, omitted counts reserved
	chain   []int
}

// keep keeps element i and its ancestors if they fit in the budget, and
// reports whether they did (or were kept already).
func (k *keeper) keep(i int) bool {
	t := k.tree
	k.chain = k.chain[:0]
	for j := i; !k.kept[j]; j = t.parent[j] {
		k.chain = append(k.chain, j)
	}
	if len(k.chain) == 0 {
		return true
	}
	cost := 0
	for n, j := range k.chain {
		cost += t.own[j] + t.reserve(j)
		top := n == len(k.chain)-1
		if top && k.hasKids[t.parent[j]] {
			cost++ // a comma
		} else {
			cost += childrenField
		}
	}
	if k.b.MaxElements > 0 && k.count+len(k.chain) > k.b.MaxElements ||
		k.b.MaxBytes > 0 && k.size+cost > k.b.MaxBytes {
		return false
	}
	for _, j := range k.chain {
		k.kept[j] = true
		k.hasKids[t.parent[j]] = true
	}
	k.count += len(k.chain)
	k.size += cost
	return true
}

// cut drops the elements not kept and sets the omitted counts. It
// changes the root in place but no element below it: an element that
// loses children, or has one below it that does, is replaced in the tree
// by a copy, and the elements the tree was given stay as they were. Those
// can be shared with an answer given before (a document unchanged since
// the last read is handed back whole), which a host may still be reading.
func (k *keeper) cut() {
	t := k.tree
	changed := make([]bool, len(t.elems))
	for i, e := range t.elems {
		if !k.kept[i] {
			continue
		}
		for j, c := i+1, 0; c < len(e.Children); j, c = j+1+t.desc[j], c+1 {
			if !k.kept[j] {
				changed[i] = true
				break
			}
		}
	}
	// In preorder a parent comes before its children: from the end, every
	// ancestor of a changed element is marked before it is looked at.
	for i := len(t.elems) - 1; i > 0; i-- {
		if changed[i] {
			changed[t.parent[i]] = true
		}
	}
	out := make([]*Element, len(t.elems)) // what stands for each element in the cut tree
	for i, e := range t.elems {
		out[i] = e
		if changed[i] && i > 0 {
			c := *e
			out[i] = &c
		}
	}
	for i, e := range t.elems {
		if !changed[i] {
			continue
		}
		var kids []*Element
		lost := 0
		// In preorder the first child follows its parent and each next
		// child follows the previous one's descendants.
		for j, c := i+1, 0; c < len(e.Children); j, c = j+1+t.desc[j], c+1 {
			if k.kept[j] {
				kids = append(kids, out[j])
			} else {
				lost += 1 + t.desc[j] + t.omit[j]
			}
		}
		out[i].Children = kids
		out[i].Omitted += lost
	}
}
