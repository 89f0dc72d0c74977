package mapping

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// macLen is the number of HMAC bytes an id carries. 48 bits make a guessed
// id pass with probability 2^-48.
const macLen = 6

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
// instance). An id is the kind, one or two numbers and an HMAC of them
// keyed by a secret of this run, so the provider can tell for any string
// whether it issued it without remembering what it issued.
type IDs struct {
	instance string
	key      [32]byte
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
	var b strings.Builder
	b.Grow(24)
	b.WriteByte(r.Kind)
	b.WriteString(strconv.FormatInt(r.A, 36))
	if r.Kind == KindNode || r.Kind == KindAXOnly {
		b.WriteByte('.')
		b.WriteString(strconv.FormatInt(r.B, 36))
	}
	payload := b.String()
	b.WriteByte('_')
	b.WriteString(ids.mac(payload))
	return b.String()
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

func (ids *IDs) mac(payload string) string {
	m := hmac.New(sha256.New, ids.key[:])
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:macLen])
}

// Parse decodes an id. It returns ErrMalformedID for a string that is not
// an id of this form and ErrNotIssued for one this run did not issue.
func (ids *IDs) Parse(id string) (Ref, error) {
	if len(id) < 3 || len(id) > 128 {
		return Ref{}, ErrMalformedID
	}
	payload, mac, ok := strings.Cut(id, "_")
	if !ok || len(mac) != base64.RawURLEncoding.EncodedLen(macLen) || len(payload) < 1 {
		return Ref{}, ErrMalformedID
	}
	r := Ref{Kind: payload[0]}
	rest := payload[1:]
	var err error
	switch r.Kind {
	case KindApp:
		if rest != "0" {
			return Ref{}, ErrMalformedID
		}
	case KindWindow, KindTabList, KindTab, KindDocument:
		r.A, err = strconv.ParseInt(rest, 36, 64)
	case KindNode, KindAXOnly:
		a, b, ok := strings.Cut(rest, ".")
		if !ok {
			return Ref{}, ErrMalformedID
		}
		if r.A, err = strconv.ParseInt(a, 36, 64); err == nil {
			r.B, err = strconv.ParseInt(b, 36, 64)
		}
	default:
		return Ref{}, ErrMalformedID
	}
	if err != nil {
		return Ref{}, ErrMalformedID
	}
	if !hmac.Equal([]byte(mac), []byte(ids.mac(payload))) {
		return Ref{}, ErrNotIssued
	}
	return r, nil
}
