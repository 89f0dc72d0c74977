package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// definesCacheScope says, for each MCP revision the SDK serves, whether
// it defines a result's cacheScope. Where it does, an absent cacheScope
// means "public", so every result must carry "private"; where it does
// not, the field means nothing to a host, and must not say "public"
// either. A revision the SDK adds fails TestNothingIsPublic until it is
// entered here.
var definesCacheScope = map[string]bool{
	"2026-07-28": true, // Cacheable: ttlMs and cacheScope, "public" when absent
	"2025-11-25": false,
	"2025-06-18": false,
	"2025-03-26": false,
	"2024-11-05": false,
}

// Nothing this server says may be kept by a shared cache: under every MCP
// revision the SDK serves, each result as it crosses the wire (reads of
// current, the descriptor and a locate URI; the lists; server/discover
// under the newest) says cacheScope "private" under a revision that
// defines the field (definesCacheScope), and is without it or "private"
// under one that does not, never "public"; a read's ttlMs is absent or 0.
func TestNothingIsPublic(t *testing.T) {
	for _, version := range sdk.SupportedProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			defines, known := definesCacheScope[version]
			if !known {
				t.Fatalf("MCP revision %s: say in definesCacheScope whether it defines a result's cacheScope", version)
			}
			var wire syncbuf.Buffer
			ctx := context.Background()
			st, ct := sdk.NewInMemoryTransports()
			srv := NewServer(newFake(), Options{Locate: true, Tools: true, Logger: slog.New(slog.DiscardHandler)})
			ss, err := srv.mcp.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			client := sdk.NewClient(&sdk.Implementation{Name: "test-host", Version: "0"}, nil)
			cs, err := client.Connect(ctx, &sdk.LoggingTransport{Transport: ct, Writer: &wire}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()

			reads := []string{CurrentURI, DescriptorURI, locatePrefix + "n1.5_AAAAAAAA"}
			for _, uri := range reads {
				read(t, cs, uri)
			}
			if _, err := cs.ListResources(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}

			// Every result the client read, as it was on the wire.
			seen := map[string]int{} // what kind of result -> how many
			sc := bufio.NewScanner(strings.NewReader(wire.String()))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line, ok := strings.CutPrefix(sc.Text(), "read: ")
				if !ok {
					continue
				}
				var msg struct {
					Result map[string]json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.Result == nil {
					continue
				}
				kind := "other"
				for _, k := range []string{"contents", "resources", "resourceTemplates", "tools", "supportedVersions"} {
					if _, ok := msg.Result[k]; ok {
						kind = k
					}
				}
				seen[kind]++
				scope, hasScope := msg.Result["cacheScope"]
				switch {
				case defines && kind != "other" && string(scope) != `"private"`:
					t.Errorf("%s result with cacheScope %s under %s, which defines it (absent is public), want private: %s", kind, scope, version, line)
				case hasScope && string(scope) != `"private"`:
					t.Errorf("%s result with cacheScope %s, want private or none: %s", kind, scope, line)
				}
				if ttl, ok := msg.Result["ttlMs"]; ok && kind == "contents" && string(ttl) != "0" {
					t.Errorf("read result with ttlMs %s, want 0: %s", ttl, line)
				}
				if kind != "other" {
					t.Logf("%s: cacheScope %s", kind, scope)
				}
			}
			want := map[string]int{"contents": len(reads), "resources": 1, "resourceTemplates": 1, "tools": 1}
			if version >= "2026-07-28" { // the client discovers the server first
				want["supportedVersions"] = 1
			}
			for kind, n := range want {
				if seen[kind] != n {
					t.Errorf("%d %s results on the wire, want %d (seen %v)", seen[kind], kind, n, seen)
				}
			}
		})
	}
}
