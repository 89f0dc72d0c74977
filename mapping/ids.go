package mapping

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
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

// macChars is the length of the authenticator that ends every id: 24
// bits of an HMAC keyed by this run. docs/ids.md gives the odds of a
// string this run did not issue passing, and what a longer one costs.
const macChars = 4

// digits are the base-62 digits of numbers in ids, in value order.
const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// macDigits are the digits of the authenticator: base 64, the URL-safe
// alphabet, all of them URI-unreserved.
const macDigits = digits + "-_"

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
	// an id of an earlier run, or a forged one.
	ErrNotIssued = errors.New("element id was not issued by this run of the provider")
)

// Ref is what an id names, decoded.
type Ref struct {
	Kind byte
	A, B int64
}

// IDs mints and checks element ids for one run of the provider (one
// instance). An id is what it names, written short, then an HMAC of that
// keyed by a secret of this run, so the provider can tell for any string
// whether it issued it without remembering what it issued. The forms, with
// DOC a document number (docBase), N a number in base 62 and M the
// authenticator:
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
// docs/ids.md explains the format, its lengths and its odds.
type IDs struct {
	instance string
	key      [32]byte
	// macs keeps keyed HMACs for reuse: a reset HMAC starts from its
	// saved keyed state, where a new one hashes the key again.
	macs sync.Pool
}

// NewIDs returns the ids of a new instance, with a random instance string
// (a UUIDv4) and a random key, both from crypto/rand.
func NewIDs() *IDs {
	ids := &IDs{}
	var u [16]byte
	rand.Read(u[:])
	rand.Read(ids.key[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	ids.instance = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	return ids
}

// Instance returns the instance string of this run (5.2).
func (ids *IDs) Instance() string { return ids.instance }

// Make returns the id of ref.
func (ids *IDs) Make(r Ref) string {
	return string(ids.appendMAC(appendPayload(make([]byte, 0, 24), r)))
}

// appendPayload appends the id of r without its authenticator.
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

// appendMAC appends the authenticator of payload.
func (ids *IDs) appendMAC(payload []byte) []byte {
	m, _ := ids.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, ids.key[:])
	} else {
		m.Reset()
	}
	m.Write(payload)
	var sum [sha256.Size]byte
	v := binary.BigEndian.Uint64(m.Sum(sum[:0]))
	ids.macs.Put(m)
	for range macChars {
		payload = append(payload, macDigits[v>>58])
		v <<= 6
	}
	return payload
}

// Peek decodes what an id names without checking its authenticator, so
// without telling whether this run issued it: for tests and tools that
// look into ids, never for answering a host (use [IDs.Parse]).
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
	if !hmac.Equal([]byte(id), []byte(ids.Make(r))) {
		return Ref{}, ErrNotIssued
	}
	return r, nil
}
