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
	KindNode     = 'n' // a DOM-backed element; A is the document, B the backend DOM node id
	KindAXOnly   = 'x' // an accessibility-only node; A is the document, B its AX node id
)

// An id ends in an authenticator: macChars base-62 digits of an HMAC of
// the rest, keyed by a secret of this run. 62^5 ≈ 9.2e8 (29.8 bits), so a
// string this run did not issue (an id of an earlier run, a typo, a guess)
// passes with probability about 1.1e-9: a host holding a million stale ids
// mistakes one for a live id with probability about 0.1%; a forger needs
// about 4.6e8 reads on average, and a forged id only names an element the
// host can read in current anyway. Each more digit costs a byte per element
// of every answer (see TestBytesPerElement) for a factor of 62.
const macChars = 5

// digits are the base-62 digits of ids, in value order.
const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Errors of [IDs.Parse].
var (
	// ErrMalformedID is returned for a string that is not of the form of
	// 5.2 (or not of the form this provider writes).
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
// numbers in base 62 and M the authenticator:
//
//	doc.nodeM   a DOM-backed element: document number, backend DOM node id
//	doc~axM     an accessibility-only node: document number, AX node id
//	dDOCM       a document        wKEYM  a window
//	tKEYM       a tab             lKEYM  a window's tab list
//	aM          the Application
//
// The first two are the ones an answer is made of, so they carry no kind
// letter. Numbers are written without leading zeros, a negative one with a
// leading "-", so each thing has exactly one id.
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
	b := make([]byte, 0, 24)
	switch r.Kind {
	case KindNode, KindAXOnly:
		b = appendNum(b, r.A)
		b = append(b, sep[r.Kind])
		b = appendNum(b, r.B)
	case KindApp:
		b = append(b, KindApp)
	default:
		b = append(b, r.Kind)
		b = appendNum(b, r.A)
	}
	return string(ids.appendMAC(b))
}

// sep separates the document from the node in the two forms without a kind
// letter.
var sep = map[byte]byte{KindNode: '.', KindAXOnly: '~'}

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
	var buf [macChars]byte
	for i := macChars - 1; i >= 0; i-- {
		buf[i] = digits[v%62]
		v /= 62
	}
	return append(payload, buf[:]...)
}

// Parse decodes an id. It returns ErrMalformedID for a string that is not
// an id of this form and ErrNotIssued for one this run did not issue.
func (ids *IDs) Parse(id string) (Ref, error) {
	if len(id) <= macChars || len(id) > 128 {
		return Ref{}, ErrMalformedID
	}
	payload := id[:len(id)-macChars]
	var r Ref
	var ok bool
	if a, b, found := strings.Cut(payload, "."); found {
		r.Kind = KindNode
		r.A, r.B, ok = parsePair(a, b)
	} else if a, b, found := strings.Cut(payload, "~"); found {
		r.Kind = KindAXOnly
		r.A, r.B, ok = parsePair(a, b)
	} else {
		r.Kind = payload[0]
		switch r.Kind {
		case KindApp:
			ok = payload == "a"
		case KindWindow, KindTabList, KindTab, KindDocument:
			r.A, ok = parseNum(payload[1:])
		}
	}
	if !ok || strings.Trim(id[len(payload):], digits) != "" {
		return Ref{}, ErrMalformedID
	}
	if !hmac.Equal([]byte(id), []byte(ids.Make(r))) {
		return Ref{}, ErrNotIssued
	}
	return r, nil
}

// parsePair reads the two numbers of the forms without a kind letter.
func parsePair(a, b string) (int64, int64, bool) {
	x, okA := parseNum(a)
	y, okB := parseNum(b)
	return x, y, okA && okB
}
