package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/bearer"
	"github.com/cdpprovider/cdpprovider/mcp"
)

// remote runs current, find or at through the provider that serves at
// cfg.Server (Config.Server), by its tools: ui_current (with cfg.Root and
// cfg.Depth), ui_find and ui_at. It prints what the local command prints
// (for find and at with cfg.JSON the tool's structured content, the same
// object with its keys in sorted order), and returns ErrNoMatch when find
// matches nothing. A tool's error is returned as the tool said it.
func remote(ctx context.Context, cfg Config, stdout io.Writer, log *slog.Logger) error {
	token, _, err := loadToken(cfg.TokenFile)
	if err != nil {
		return err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: Name, Version: Version}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:             cfg.Server,
		HTTPClient:           &http.Client{Transport: bearer.Transport{Token: token}},
		DisableStandaloneSSE: true, // one call, no notifications
	}, nil)
	if err != nil {
		return fmt.Errorf("--server %s: no MCP session (is cdpprovider serve --http running there, with this token?): %w", cfg.Server, err)
	}
	defer session.Close()
	log.Debug("reading through a serving provider", "server", cfg.Server)

	name, args := remoteCall(cfg)
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		if !offered(ctx, session, name) {
			return fmt.Errorf("--server %s offers no tool %s: start it with serve --http … --tools", cfg.Server, name)
		}
		return fmt.Errorf("--server %s: %s: %w", cfg.Server, name, err)
	}
	text := toolText(res)
	if res.IsError {
		err := fmt.Errorf("%s through --server %s: %s", name, cfg.Server, strings.TrimSpace(text))
		// The tool's text is its reason, a colon and its message, whose
		// advice is for a model; a person's follows.
		if reason, _, _ := strings.Cut(text, ":"); slices.Contains([]string{mcp.ReasonGone, mcp.ReasonNotIssued, mcp.ReasonMalformed}, reason) {
			return fmt.Errorf("%w\n(find --server %s prints the ids of that provider's run now)", err, cfg.Server)
		}
		return err
	}
	none := cfg.Command == Find && noMatches(res)
	switch {
	case cfg.JSON && cfg.Command != Current:
		if res.StructuredContent == nil {
			return errors.New("the serving provider's answer has no structured content")
		}
		err = printJSON(stdout, res.StructuredContent)
	case none: // the text says so; the local command prints nothing
	case cfg.JSON:
		_, err = io.WriteString(stdout, text+"\n")
	default:
		_, err = io.WriteString(stdout, text)
	}
	if err == nil && none {
		return ErrNoMatch
	}
	return err
}

// remoteCall is the tool and the arguments that do cfg's command.
func remoteCall(cfg Config) (string, map[string]any) {
	switch cfg.Command {
	case Find:
		args := map[string]any{"limit": mcp.MaxFindLimit}
		if cfg.Limit > 0 {
			args["limit"] = min(cfg.Limit, mcp.MaxFindLimit)
		}
		if cfg.Text != "" {
			args["text"] = cfg.Text
		}
		if cfg.Regex {
			args["regex"] = true
		}
		if cfg.Role != "" {
			args["role"] = cfg.Role
		}
		return mcp.ToolFind, args
	case At:
		return mcp.ToolAt, map[string]any{"x": cfg.Point[0], "y": cfg.Point[1]}
	}
	args := map[string]any{"format": "outline"}
	if cfg.JSON {
		args["format"] = "json"
	}
	if cfg.Root != "" {
		args["root"] = cfg.Root
	}
	if cfg.Depth != nil {
		args["depth"] = *cfg.Depth
	}
	if cfg.Screen {
		args["scope"] = "screen"
	}
	return mcp.ToolCurrent, args
}

// offered reports whether the server lists the tool; true when it cannot
// tell (the call's own error then says what went wrong).
func offered(ctx context.Context, session *sdk.ClientSession, name string) bool {
	for t, err := range session.Tools(ctx, nil) {
		if err != nil || t.Name == name {
			return true
		}
	}
	return false
}

// toolText is the text of a tool's result.
func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// noMatches reports whether a ui_find result lists no match.
func noMatches(res *sdk.CallToolResult) bool {
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		return false
	}
	matches, _ := m["matches"].([]any)
	return len(matches) == 0
}
