package mapping

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the answer's JSON to dst, byte for byte what
// encoding/json's Encoder writes with SetEscapeHTML(false), without the
// newline. A 50,000-node page's answer is about 18,000 elements and a
// megabyte: encoding/json's reflection takes tens of milliseconds over it,
// this a few.
func (c *Current) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"protocol":`...)
	dst = appendString(dst, c.Protocol)
	dst = append(dst, `,"instance":`...)
	dst = appendString(dst, c.Instance)
	dst = append(dst, `,"root":`...)
	if c.Root == nil {
		dst = append(dst, "null"...)
	} else {
		dst = c.Root.AppendJSON(dst)
	}
	return append(dst, '}')
}

// AppendJSON appends the element's JSON, its descendants included, as
// Current.AppendJSON does.
func (e *Element) AppendJSON(dst []byte) []byte {
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
				dst = c.AppendJSON(dst)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
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
