package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/conformance"
	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// read reads uri and returns the text of its one content item, after
// checking the item's form (7.1).
func read(t *testing.T, cs *sdk.ClientSession, uri string) []byte {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	c := res.Contents[0]
	if c.URI != uri || c.MIMEType != "application/json" || c.Blob != nil {
		t.Errorf("read %s: content uri %q, mimeType %q, blob %d bytes; want the uri, application/json, no blob", uri, c.URI, c.MIMEType, len(c.Blob))
	}
	if !json.Valid([]byte(c.Text)) {
		t.Fatalf("read %s: text is not JSON: %s", uri, c.Text)
	}
	if ttl := res.TTLMs; ttl != 0 {
		t.Errorf("read %s: ttlMs = %d, want 0 (never cached)", uri, ttl)
	}
	return []byte(c.Text)
}

func readCurrent(t *testing.T, cs *sdk.ClientSession) *mapping.Current {
	t.Helper()
	return conformance.CheckCurrent(t, read(t, cs, CurrentURI))
}

func TestReadCurrent(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true}, version)
			raw := read(t, cs, CurrentURI)
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil || !bytes.Equal(compact.Bytes(), raw) {
				t.Errorf("current text is not compact JSON: %s", raw)
			}
			if !bytes.Contains(raw, []byte(`"Fish & <Chips>"`)) {
				t.Errorf("current text escapes & < >: %s", raw)
			}
			if diff := cmp.Diff(src.current, conformance.CheckCurrent(t, raw)); diff != "" {
				t.Errorf("current (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadDescriptor(t *testing.T) {
	forEach(t, func(t *testing.T, locate bool, version string) {
		src := newFake()
		cs := connect(t, src, Options{Locate: locate, ProviderName: "cdpprovider", ProviderVersion: "0.1.0"}, version)
		got := conformance.CheckDescriptor(t, read(t, cs, DescriptorURI))
		want := &mapping.Descriptor{
			Protocol:   "0.2.0",
			App:        src.app,
			Provider:   mapping.ProviderInfo{Name: "cdpprovider", Version: "0.1.0"},
			Operations: []string{"current"},
		}
		if locate {
			want.Operations = append(want.Operations, "locate")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("descriptor (-want +got):\n%s", diff)
		}
	})
}

func TestReadLocation(t *testing.T) {
	tests := []struct {
		uri, id string // id: what the source is asked about
	}{
		{"uicontext://locate/n1.5_AAAAAAAA", "n1.5_AAAAAAAA"},
		{"uicontext://locate/n1.6_AAAAAAAA", "n1.6_AAAAAAAA"},
		{"uicontext://locate/n1.7_AAAAAAAA", "n1.7_AAAAAAAA"},
		{"uicontext://locate/n1%2E5_%41AAAAAAA", "n1.5_AAAAAAAA"}, // percent-encoded
	}
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true}, version)
			for _, tt := range tests {
				got := conformance.CheckLocation(t, read(t, cs, tt.uri))
				if diff := cmp.Diff(src.locations[tt.id], got); diff != "" {
					t.Errorf("read %s (-want +got):\n%s", tt.uri, diff)
				}
			}
			var asked []string
			for _, tt := range tests {
				asked = append(asked, tt.id)
			}
			if !slices.Equal(src.located, asked) {
				t.Errorf("source was asked about %q, want %q", src.located, asked)
			}
		})
	}
}

// A document unchanged since the answer before (the same element) is
// copied into the answer, not written again, and the text is the same.
func TestReadCurrentCopiesAnUnchangedDocument(t *testing.T) {
	src := newFake()
	s := NewServer(src, Options{Locate: true, Logger: slog.New(slog.DiscardHandler)})
	first, err := s.currentText(context.Background(), CurrentURI)
	if err != nil {
		t.Fatal(err)
	}
	// The next read: a new answer around the same document.
	doc := src.current.Root.Children[0].Children[1]
	src.mu.Lock()
	src.current = &mapping.Current{Protocol: src.current.Protocol, Instance: src.current.Instance, Root: &mapping.Element{
		ID: "a0_AAAAAAAA", Role: "Application", Title: "Chromium", States: []string{"focused"},
		Children: []*mapping.Element{{ID: "w1_AAAAAAAA", Role: "Window", Title: "Fish & <Chips>", States: []string{"focused"},
			Children: []*mapping.Element{src.current.Root.Children[0].Children[0], doc}}},
	}}
	src.mu.Unlock()
	second, err := s.currentText(context.Background(), CurrentURI)
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Errorf("the second answer differs:\n%s\nfirst:\n%s", second, first)
	}
	if n := s.docs.Copied(); n != 1 {
		t.Errorf("%d documents copied, want 1", n)
	}
}
