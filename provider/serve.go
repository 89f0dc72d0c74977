package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/mcp"
)

// serve serves MCP over stdin/stdout until the client disconnects (its
// stdin ends: a closed pipe reads as EOF on Windows too) or ctx ends
// (Ctrl-C: os.Interrupt, which Go delivers for a console's Ctrl-C and
// Ctrl-Break on Windows too; the close of its console window, logoff or
// shutdown come as SIGTERM).
func serve(ctx context.Context, cfg Config, src mcp.Source, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	server := mcp.NewServer(src, mcpOptions(cfg, log))
	t := &sdkmcp.IOTransport{Reader: nopReadCloser{stdin}, Writer: nopWriteCloser{stdout}}
	log.Info("serving MCP on stdio", "locate", !cfg.NoLocate, "tools", cfg.Tools)
	err := server.Run(ctx, t)
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, sdkmcp.ErrConnectionClosed),
		readerGone(err): // the host closed stdout while a notification was on its way
		log.Info("client disconnected")
		return nil
	case ctx.Err() != nil:
		log.Info("stopping", "cause", context.Cause(ctx))
		return nil
	default:
		return fmt.Errorf("serve: %w", err)
	}
}

// mcpOptions are the MCP server's options for cfg, over stdio and HTTP.
func mcpOptions(cfg Config, log *slog.Logger) mcp.Options {
	return mcp.Options{
		Locate:          !cfg.NoLocate,
		Tools:           cfg.Tools,
		ProviderName:    Name,
		ProviderVersion: Version,
		Logger:          log,
	}
}

// nopReadCloser leaves closing stdin to its owner.
type nopReadCloser struct{ io.Reader }

// Close does nothing.
func (nopReadCloser) Close() error { return nil }

// nopWriteCloser leaves closing stdout to its owner.
type nopWriteCloser struct{ io.Writer }

// Close does nothing.
func (nopWriteCloser) Close() error { return nil }
