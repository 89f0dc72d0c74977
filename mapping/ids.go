package mapping

import (
	"crypto/rand"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"strings"
	"sync"
)

// Kinds of things an id can name.
const (
	KindApp      = 'a' // the Application root
	KindWindow   = 'w' // a browser window; A is the window key
	KindTabList  = 'l' // the tab strip of window A
	KindTab      = 't' // a tab; A is the tab key
	KindDocument = 'd' // a document; A is the document number
	KindNode     = 'n' // a DOM-backed element; A is the document, B the backend DOM node id less Frame.NodeBase
	KindAXOnly   = 'x' // an accessibility-only node; A is the document, B its AX node id
	KindDialog   = 'j' // a part of a JavaScript dialog; A is the dialog key times 8 plus the part (DialogSelf …)
)

// macChars is the length of the check that ends every id: one character
// of a hash keyed by this run. What tells issued ids apart is the record
// of what this run issued (IDs.issued); the check makes an id of an
// earlier run, or a typo that names another issued id, fail 25 times in
// 26. docs/ids.md gives what each character costs a model.
const macChars = 1

// digits are the base-62 digits of numbers in ids, in value order.
const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// macDigits are the digits of the check: the lower-case letters, which
// a model's tokenizer joins to the digits before them more often than
// upper-case letters, digits or "-_" (docs/ids.md).
const macDigits = "abcdefghijklmnopqrstuvwxyz"

// docBase is the base of a document number before a node number, written
// so that it ends itself: the last digit from digits[:31], the ones before
// it from digits[31:] (docs/ids.md).
const docBase = 31

// Prefixes of the forms other than a DOM-backed element's, which starts
// with a digit.
const (
	axPrefix   = '~' // an accessibility-only node
	kindPrefix = '.' // a window, tab list, tab, document, dialog part or the Application
)

// Errors of [IDs.Parse].
var (
	// ErrMalformedID is returned for a string that is not of the form of
	// docs/protocol.md §5.2 (or not of the form this provider writes).
	ErrMalformedID = errors.New("malformed element id")
	// ErrNotIssued is returned for a well-formed id this run never issued:
	// an id of an earlier run, a typo, or a forged one.
	ErrNotIssued = errors.New("element id was not issued by this run of the provider")
)

// Ref is what an id names, decoded.
type Ref struct {
	Kind byte
	A, B int64
}

// IDs mints and checks element ids for one run of the provider (one
// instance). An id is what it names, written short, then one character of
// a hash of that keyed by a secret of this run; and the provider keeps a
// record of what it issued, so it can tell for any string whether it
// issued it. The forms, with DOC a document number (docBase), N a number
// in base 62 and M the check:
//
//	DOC N M     a DOM-backed element: document, backend DOM node id less
//	            Frame.NodeBase
//	~DOC N M    an accessibility-only node: document, AX node id
//	.dN M       a document     .wN M  a window
//	.tN M       a tab          .lN M  a window's tab list
//	.jN M       a part of a JavaScript dialog (N: its key times 8 plus
//	            the part)
//	.aM         the Application
//
// The record: each window, tab list, tab, document and dialog part
// issued (a few bytes each, for the run), and the elements issued of each
// document until the provider forgets the document ([IDs.Forget]); an id
// of an element of a forgotten document is taken as issued (its element
// is gone). docs/ids.md explains the format, its lengths and its odds.
// The zero IDs is not usable: use [NewIDs].
type IDs struct {
	instance string
	seed     maphash.Seed
	mu       sync.RWMutex
	things   map[Ref]bool              // issued, not elements; a Document true once forgotten
	docs     map[int64]*issuedElements // the elements issued, by document not forgotten
}

// issuedElements is what IDs records of the elements of one document.
type issuedElements struct {
	mu    sync.Mutex
	low   []uint64         // a bit for each node number 0 <= B < len(low)*64
	other map[Ref]struct{} // the rest: other node numbers, accessibility-only nodes
}

// lowNodes bounds the node numbers kept as bits: a document's node
// numbers count its DOM nodes from its own (docs/ids.md).
const lowNodes = 1 << 24

// NewIDs returns the ids of a new instance, with a random instance string
// (a UUIDv4, from crypto/rand) and a random seed for the check letters.
func NewIDs() *IDs {
	ids := &IDs{seed: maphash.MakeSeed(), things: map[Ref]bool{}, docs: map[int64]*issuedElements{}}
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	ids.instance = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	return ids
}

// Instance returns the instance string of this run (5.2).
func (ids *IDs) Instance() string { return ids.instance }

// Make returns the id of ref, and records it as issued.
func (ids *IDs) Make(r Ref) string {
	ids.record(r)
	return ids.write(r)
}

// write returns the id of ref.
func (ids *IDs) write(r Ref) string {
	return string(ids.appendMAC(appendPayload(make([]byte, 0, 16), r)))
}

// record notes r as issued. An element of a forgotten document is not
// recorded: its id answers as issued without it.
func (ids *IDs) record(r Ref) {
	switch r.Kind {
	case KindApp:
		return
	case KindNode, KindAXOnly:
	default:
		ids.mu.RLock()
		_, known := ids.things[r]
		ids.mu.RUnlock()
		if !known {
			ids.mu.Lock()
			if _, known := ids.things[r]; !known {
				ids.things[r] = false
			}
			ids.mu.Unlock()
		}
		return
	}
	ids.mu.RLock()
	els := ids.docs[r.A]
	ids.mu.RUnlock()
	if els == nil {
		doc := Ref{Kind: KindDocument, A: r.A}
		ids.mu.Lock()
		if els = ids.docs[r.A]; els == nil {
			if ids.things[doc] {
				ids.mu.Unlock()
				return // forgotten
			}
			ids.things[doc] = false
			els = &issuedElements{}
			ids.docs[r.A] = els
		}
		ids.mu.Unlock()
	}
	els.add(r)
}

// issued reports whether r was recorded, or is an element of a
// forgotten document.
func (ids *IDs) issued(r Ref) bool {
	if r.Kind == KindApp {
		return true
	}
	ids.mu.RLock()
	if r.Kind != KindNode && r.Kind != KindAXOnly {
		_, known := ids.things[r]
		ids.mu.RUnlock()
		return known
	}
	els, forgotten := ids.docs[r.A], ids.things[Ref{Kind: KindDocument, A: r.A}]
	ids.mu.RUnlock()
	if els == nil {
		return forgotten
	}
	return els.has(r)
}

// bit returns where the record keeps element r as a bit (word w, mask m):
// a DOM-backed element of a node number under lowNodes; ok false for the
// rest, kept in other.
func bit(r Ref) (w int, m uint64, ok bool) {
	if r.Kind != KindNode || r.B < 0 || r.B >= lowNodes {
		return 0, 0, false
	}
	return int(r.B >> 6), 1 << (r.B & 63), true
}

// add records element r of the document.
func (els *issuedElements) add(r Ref) {
	els.mu.Lock()
	defer els.mu.Unlock()
	if w, m, ok := bit(r); ok {
		if w >= len(els.low) {
			els.low = append(els.low, make([]uint64, w+1-len(els.low))...)
		}
		els.low[w] |= m
		return
	}
	if els.other == nil {
		els.other = map[Ref]struct{}{}
	}
	els.other[Ref{Kind: r.Kind, B: r.B}] = struct{}{}
}

// has reports whether element r of the document was recorded.
func (els *issuedElements) has(r Ref) bool {
	els.mu.Lock()
	defer els.mu.Unlock()
	if w, m, ok := bit(r); ok {
		return w < len(els.low) && els.low[w]&m != 0
	}
	_, ok := els.other[Ref{Kind: r.Kind, B: r.B}]
	return ok
}

// Forget drops the record of the elements of document doc, whose
// elements are gone: their ids (and only theirs of that document's
// number) still answer as issued. The provider calls it when it forgets
// the document, so the record is bounded by what is alive.
func (ids *IDs) Forget(doc uint64) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	delete(ids.docs, int64(doc))
	ids.things[Ref{Kind: KindDocument, A: int64(doc)}] = true
}

// Remembered returns how many documents' elements the record holds: for
// the tests that check it is no more than what is open.
func (ids *IDs) Remembered() int {
	ids.mu.RLock()
	defer ids.mu.RUnlock()
	return len(ids.docs)
}

// appendPayload appends the id of r without its check letter.
func appendPayload(b []byte, r Ref) []byte {
	switch r.Kind {
	case KindNode, KindAXOnly:
		if r.Kind == KindAXOnly {
			b = append(b, axPrefix)
		}
		b = appendDoc(b, uint64(r.A))
		b = appendNum(b, r.B)
	case KindApp:
		b = append(b, kindPrefix, KindApp)
	default:
		b = append(b, kindPrefix, r.Kind)
		b = appendNum(b, r.A)
	}
	return b
}

// appendDoc appends a document number in its self-ending form (docBase).
func appendDoc(b []byte, n uint64) []byte {
	var buf [13]byte // 31^13 > 2^64
	i := len(buf) - 1
	buf[i] = digits[n%docBase]
	for n /= docBase; n > 0; n /= docBase {
		i--
		buf[i] = digits[docBase+n%docBase]
	}
	return append(b, buf[i:]...)
}

// cutDoc reads a document number written by appendDoc from the start of s
// and returns it with the rest of s; ok is false when s does not start
// with one (canonical: no leading zero, no overflow).
func cutDoc(s string) (n uint64, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(digits, s[i])
		if d < 0 || i == 0 && d == docBase || i == 12 && d >= docBase {
			return 0, "", false // not a digit, a leading zero, too long
		}
		hi, lo := bits.Mul64(n, docBase)
		if d < docBase {
			n = lo + uint64(d)
			return n, s[i+1:], hi == 0 && n >= lo
		}
		n = lo + uint64(d-docBase)
		if hi != 0 || n < lo {
			return 0, "", false
		}
	}
	return 0, "", false
}

// appendNum appends n in base 62.
func appendNum(b []byte, n int64) []byte {
	u := uint64(n)
	if n < 0 {
		b = append(b, '-')
		u = -u
	}
	var buf [11]byte
	i := len(buf)
	for {
		i--
		buf[i] = digits[u%62]
		u /= 62
		if u == 0 {
			break
		}
	}
	return append(b, buf[i:]...)
}

// parseNum reads a number written by appendNum, and reports whether s is
// one (canonical: no leading zero, no "-0", no overflow).
func parseNum(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 11 || len(s) > 1 && s[0] == '0' || neg && s == "0" {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(digits, s[i])
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(u, 62)
		u = lo + uint64(d)
		if hi != 0 || u < lo || u > math.MaxInt64 && !(neg && u == 1<<63) {
			return 0, false
		}
	}
	if neg {
		return int64(-u), true
	}
	return int64(u), true
}

// App, Window, TabList, Tab, Document, Node and AXOnly return the id of one
// kind of thing.
func (ids *IDs) App() string                { return ids.Make(Ref{Kind: KindApp}) }
func (ids *IDs) Window(key uint64) string   { return ids.Make(Ref{Kind: KindWindow, A: int64(key)}) }
func (ids *IDs) TabList(key uint64) string  { return ids.Make(Ref{Kind: KindTabList, A: int64(key)}) }
func (ids *IDs) Tab(key uint64) string      { return ids.Make(Ref{Kind: KindTab, A: int64(key)}) }
func (ids *IDs) Document(doc uint64) string { return ids.Make(Ref{Kind: KindDocument, A: int64(doc)}) }
func (ids *IDs) Node(doc uint64, backend int64) string {
	return ids.Make(Ref{Kind: KindNode, A: int64(doc), B: backend})
}
func (ids *IDs) Dialog(key uint64, part int) string {
	return ids.Make(Ref{Kind: KindDialog, A: int64(key)*8 + int64(part)})
}
func (ids *IDs) AXOnly(doc uint64, axID int64) string {
	return ids.Make(Ref{Kind: KindAXOnly, A: int64(doc), B: axID})
}

// appendMAC appends the check of payload: macChars characters of its
// hash keyed by this run's seed.
func (ids *IDs) appendMAC(payload []byte) []byte {
	v := maphash.Bytes(ids.seed, payload)
	for range macChars {
		payload = append(payload, macDigits[v%uint64(len(macDigits))])
		v /= uint64(len(macDigits))
	}
	return payload
}

// Peek decodes what an id names without checking its check letter or the
// record, so without telling whether this run issued it: for tests and
// tools that look into ids, never for answering a host (use [IDs.Parse]).
func Peek(id string) (Ref, bool) {
	if len(id) <= macChars || len(id) > 128 {
		return Ref{}, false
	}
	payload, mac := id[:len(id)-macChars], id[len(id)-macChars:]
	for i := 0; i < len(mac); i++ {
		if strings.IndexByte(macDigits, mac[i]) < 0 {
			return Ref{}, false
		}
	}
	var r Ref
	var ok bool
	switch payload[0] {
	case kindPrefix:
		if len(payload) < 2 {
			return Ref{}, false
		}
		r.Kind = payload[1]
		switch r.Kind {
		case KindApp:
			ok = len(payload) == 2
		case KindWindow, KindTabList, KindTab, KindDocument:
			r.A, ok = parseNum(payload[2:])
		case KindDialog:
			r.A, ok = parseNum(payload[2:])
			ok = ok && r.A >= 0 && r.A%8 < dialogParts
		}
	case axPrefix:
		r.Kind = KindAXOnly
		r.A, r.B, ok = parsePair(payload[1:])
	default:
		r.Kind = KindNode
		r.A, r.B, ok = parsePair(payload)
	}
	return r, ok
}

// parsePair reads the document and the number of a node's forms.
func parsePair(s string) (int64, int64, bool) {
	doc, rest, ok := cutDoc(s)
	if !ok {
		return 0, 0, false
	}
	n, ok := parseNum(rest)
	return int64(doc), n, ok
}

// Parse decodes an id. It returns ErrMalformedID for a string that is not
// an id of this form and ErrNotIssued for one this run did not issue.
func (ids *IDs) Parse(id string) (Ref, error) {
	r, ok := Peek(id)
	if !ok {
		return Ref{}, ErrMalformedID
	}
	if id != ids.write(r) || !ids.issued(r) {
		return Ref{}, ErrNotIssued
	}
	return r, nil
}
