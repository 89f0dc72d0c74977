package wire

import (
	"testing"
	"unsafe"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// decodeMessage decodes what cdproto's own decoding of a Message does,
// and leaves the params and the result in the message's bytes, not
// copies of them.
func TestDecodeMessage(t *testing.T) {
	for _, in := range []string{
		`{"id":7,"result":{"nodes":[{"nodeId":"1","name":{"type":"computedString","value":"caf\u00e9 \"q\""}}]}}`,
		`{"id":8,"sessionId":"S1","result":{}}`,
		`{"method":"Accessibility.nodesUpdated","params":{"nodes":[]},"sessionId":"AB"}`,
		` { "id" : 9 , "error" : { "code" : -32000 , "message" : "No node with given id found" } } `,
		`{"id":10,"error":{"code":-32601,"message":"'X.y' wasn't found","data":"extra"}}`,
		`{"method":"Runtime.bindingCalled","params":{"name":"b","payload":"\ud800 lone"},"unknown":[1,{"a":null}]}`,
		"{\"method\":\"Log.entryAdded\",\"params\":{\"text\":\"bad \xff byte\"}}",
	} {
		var want cdproto.Message
		if err := jsonv2.Unmarshal([]byte(in), &want, chromedp.DefaultUnmarshalOptions); err != nil {
			t.Fatalf("%s: cdproto: %v", in, err)
		}
		data := []byte(in)
		var got cdproto.Message
		got.Method = "left over from the message before"
		if err := decodeMessage(data, &got); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s decodes differently (-cdproto +decodeMessage):\n%s", in, d)
		}
		for name, v := range map[string]jsonv2.Value{"params": got.Params, "result": got.Result} {
			if len(v) > 0 && !within(v, data) {
				t.Errorf("%s: the %s is a copy, not the message's own bytes", in, name)
			}
		}
	}
}

// within says whether v lies in data's memory.
func within(v, data []byte) bool {
	p, lo := uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return p >= lo && p+uintptr(len(v)) <= lo+uintptr(len(data))
}

// A malformed message is an error, never a panic.
func TestDecodeMessageRejectsMalformed(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"id":1`, `{"id":1,}`, `{"result":}`, `{"error":[1]}`, `null`, `{"id":1} x`, `{"id":11,"result":[1,2,3],"\u0069d":12}`} {
		var msg cdproto.Message
		if err := decodeMessage([]byte(in), &msg); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
