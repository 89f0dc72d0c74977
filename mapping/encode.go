package mapping

import (
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// AppendJSON appends the answer's JSON to dst, byte for byte what
// encoding/json's Encoder writes with SetEscapeHTML(false), without the
// newline. A 50,000-node page's answer is about 18,000 elements and a
// megabyte: encoding/json's reflection takes tens of milliseconds over it,
// this a few.
func (c *Current) AppendJSON(dst []byte) []byte { return c.appendJSON(dst, nil) }

// appendJSON is AppendJSON; doc, when set, appends each outermost
// Document element instead.
func (c *Current) appendJSON(dst []byte, doc func(dst []byte, e *Element) []byte) []byte {
	dst = append(dst, `{"protocol":`...)
	dst = appendString(dst, c.Protocol)
	dst = append(dst, `,"instance":`...)
	dst = appendString(dst, c.Instance)
	dst = append(dst, `,"root":`...)
	if c.Root == nil {
		dst = append(dst, "null"...)
	} else {
		dst = c.Root.appendJSON(dst, doc)
	}
	return append(dst, '}')
}

// AppendJSON appends the element's JSON, its descendants included, as
// Current.AppendJSON does.
func (e *Element) AppendJSON(dst []byte) []byte { return e.appendJSON(dst, nil) }

// appendJSON is AppendJSON; doc, when set, appends each outermost
// Document element at or below e instead.
func (e *Element) appendJSON(dst []byte, doc func(dst []byte, e *Element) []byte) []byte {
	if doc != nil && e.Role == roleDocument {
		return doc(dst, e)
	}
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, e.ID)
	dst = append(dst, `,"role":`...)
	dst = appendString(dst, e.Role)
	field := func(dst []byte, key, s string) []byte {
		if s == "" {
			return dst
		}
		dst = append(dst, key...)
		return appendString(dst, s)
	}
	dst = field(dst, `,"title":`, e.Title)
	dst = field(dst, `,"value":`, e.Value)
	dst = field(dst, `,"description":`, e.Description)
	dst = field(dst, `,"url":`, e.URL)
	if e.Level != 0 {
		dst = append(dst, `,"level":`...)
		dst = strconv.AppendInt(dst, int64(e.Level), 10)
	}
	if len(e.States) > 0 {
		dst = append(dst, `,"states":[`...)
		for i, s := range e.States {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		dst = append(dst, ']')
	}
	if e.Omitted != 0 {
		dst = append(dst, `,"omitted":`...)
		dst = strconv.AppendInt(dst, int64(e.Omitted), 10)
	}
	if len(e.Children) > 0 {
		dst = append(dst, `,"children":[`...)
		for i, c := range e.Children {
			if i > 0 {
				dst = append(dst, ',')
			}
			if c == nil {
				dst = append(dst, "null"...)
			} else {
				dst = c.appendJSON(dst, doc)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// A DocumentCache writes answers of current as Current.AppendJSON does,
// keeping the JSON of each outermost Document element for the next
// answer: a document unchanged since the last read is the same element
// (Frame.Mapped), and an element is never changed once an answer holds
// it (ApplyBudgetOnScreen copies what it cuts), so its JSON is copied rather than
// written again. It keeps those of the last answer only. The zero value
// is ready; it is safe for concurrent use.
type DocumentCache struct {
	mu     sync.Mutex
	docs   map[*Element][]byte // guarded by mu
	copied int                 // documents copied so far, for tests; guarded by mu
}

// AppendJSON appends c's JSON to dst.
func (dc *DocumentCache) AppendJSON(dst []byte, c *Current) []byte {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	next := make(map[*Element][]byte, len(dc.docs))
	dst = c.appendJSON(dst, func(dst []byte, e *Element) []byte {
		if b, ok := dc.docs[e]; ok {
			next[e] = b
			dc.copied++
			return append(dst, b...)
		}
		start := len(dst)
		dst = e.appendJSON(dst, nil)
		next[e] = slices.Clone(dst[start:])
		return dst
	})
	dc.docs = next
	return dst
}

// Copied is how many documents dc copied from the answer before: for
// tests and benchmarks, which check that the copy answered.
func (dc *DocumentCache) Copied() int {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	return dc.copied
}

// appendString appends s as a JSON string the way encoding/json does
// without HTML escaping: quotes, backslashes and control characters
// escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
