package wire

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	cdpmsg "github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
)

// wsTransport carries the protocol's messages over the browser's
// websocket: a chromedp.Transport, as chromedp's remote.Conn is, with one
// difference that matters on big pages. remote.Conn decodes every message
// with one reused decoder, whose buffer grows to the biggest message ever
// read and keeps that size for the connection's life: 32 MB after one
// getFullAXTree of a 50,000-node page, a third of the provider's memory
// then. Here each message is decoded from its own bytes, and nothing of
// it outlives the message. The websocket itself is coder/websocket's.
type wsTransport struct{ ws *websocket.Conn }

// errRefused is the error of a handshake the browser answered with 403
// Forbidden: what a browser whose person clicked Cancel in "Allow remote
// debugging?" answers.
var errRefused = errors.New("the browser refused the connection (403 Forbidden)")

// HandshakeError is a browser's or a browser service's answer to the
// websocket handshake that let the provider not in: 401, 403, 404, ….
type HandshakeError struct {
	// Code is the HTTP status.
	Code int
	// Said is the first line of the answer's body, when it is a
	// sentence: a service says why it refused ("Bad or missing
	// authentication.").
	Said string
	// Err is the handshake's error, which may name the URL.
	Err error
}

func (e *HandshakeError) Error() string { return e.Err.Error() }

func (e *HandshakeError) Unwrap() error { return e.Err }

// dialWS opens the websocket at url, sending header (nil: none) with the
// handshake. ctx bounds the handshake only.
func dialWS(ctx context.Context, url string, header http.Header) (*wsTransport, error) {
	// No proxy: a debugging port is reached directly, whatever
	// HTTP_PROXY says (chromedp's dialer does the same).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	ws, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: tr},
		HTTPHeader: header,
	})
	if err != nil {
		if res != nil && res.StatusCode == http.StatusForbidden {
			return nil, &HandshakeError{Code: res.StatusCode, Err: fmt.Errorf("%w: %v", errRefused, err)}
		}
		if res != nil && res.StatusCode != http.StatusSwitchingProtocols {
			return nil, &HandshakeError{Code: res.StatusCode, Said: said(res), Err: err}
		}
		return nil, err
	}
	ws.SetReadLimit(-1) // a big page's tree is tens of megabytes in one message
	return &wsTransport{ws: ws}, nil
}

// Read reads the next message. Only the connection's read loop calls it.
func (t *wsTransport) Read(_ context.Context, msg *cdpmsg.Message) error {
	// The context is not the caller's: coder/websocket closes the
	// connection when a read's context ends, and Close ends a read.
	typ, data, err := t.ws.Read(context.Background())
	if err != nil {
		return err
	}
	if typ != websocket.MessageText {
		return errors.New("the browser sent a binary websocket message")
	}
	return decodeMessage(data, msg)
}

// decodeMessage decodes a message without copying its params or result:
// they stay slices of data, which is the message's own and is never
// reused. (Decoding into cdpmsg.Message's fields would copy them, and a
// big page's tree is most of a message's bytes.)
func decodeMessage(data []byte, msg *cdpmsg.Message) error {
	*msg = cdpmsg.Message{}
	return jsonv2.Unmarshal(data, &envelope{msg: msg, data: data}, chromedp.DefaultUnmarshalOptions)
}

// envelope decodes a message into msg, its params and result as slices
// of data, the whole input.
type envelope struct {
	msg  *cdpmsg.Message
	data []byte
}

func (e *envelope) UnmarshalJSONFrom(d *jsonv2.Decoder) error {
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return cmp.Or(err, errors.New("a message from the browser is not a JSON object"))
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // the token is void after the next read
		switch name {
		case "id":
			if tok, err = d.ReadToken(); err == nil && tok.Kind() == '0' {
				e.msg.ID = tok.Int()
			}
		case "sessionId":
			if tok, err = d.ReadToken(); err == nil {
				e.msg.SessionID = target.SessionID(tok.String())
			}
		case "method":
			if tok, err = d.ReadToken(); err == nil {
				e.msg.Method = cdpmsg.MethodType(tok.String())
			}
		case "params":
			e.msg.Params, err = e.raw(d)
		case "result":
			e.msg.Result, err = e.raw(d)
		case "error":
			err = jsonv2.UnmarshalDecode(d, &e.msg.Error)
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return fmt.Errorf("a message from the browser: %q: %w", name, err)
		}
	}
	_, err := d.ReadToken()
	return err
}

// raw reads the next value and returns it as a slice of e.data.
func (e *envelope) raw(d *jsonv2.Decoder) (jsonv2.Value, error) {
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	end := int(d.InputOffset())
	if end > len(e.data) || end < len(v) {
		return nil, errors.New("the decoder's offset is not in the message") // never: data is its input
	}
	return jsonv2.Value(e.data[end-len(v) : end : end]), nil
}

// Write sends a message. It is safe for concurrent use.
func (t *wsTransport) Write(_ context.Context, msg *cdpmsg.Message) error {
	b, err := jsonv2.Marshal(msg, chromedp.DefaultMarshalOptions)
	if err != nil {
		return err
	}
	// Not the call's context either: one that ends mid-write would close
	// the connection for every call. A browser that stops reading is
	// found by the calls' own waits (Conn.stall), and Close ends a write.
	return t.ws.Write(context.Background(), websocket.MessageText, b)
}

// Close closes the connection at once, without the close handshake: a
// browser that stopped answering would not answer that either.
func (t *wsTransport) Close() error { return t.ws.CloseNow() }

// said is the first line of a refused handshake's body when it is a
// sentence, not a page: what a service says of its refusal. The
// websocket library keeps the first 1024 bytes of it.
func said(res *http.Response) string {
	if res.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	line = strings.TrimSpace(line)
	if len(line) > 200 || strings.HasPrefix(line, "<") || strings.HasPrefix(line, "{") {
		return ""
	}
	return line
}
