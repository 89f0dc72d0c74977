package provider

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// at reads current once, as current does (waiting for the pages it
// launched to load), then prints what is at cfg's point: one line
// (mapping.WriteHit), or with cfg.JSON the hit as one JSON object and a
// newline. A point on no window is an answer, not a failure.
func at(ctx context.Context, cfg Config, src source, stdout io.Writer, log *slog.Logger) error {
	if _, err := readOnce(ctx, cfg, src, log); err != nil {
		return err
	}
	x, y := cfg.Point[0], cfg.Point[1]
	h, err := src.At(ctx, x, y)
	if err != nil {
		return withAdvice(fmt.Errorf("find what is at %v,%v: %w", x, y, err), cfg)
	}
	if !cfg.JSON {
		if err := mapping.WriteHit(stdout, h); err != nil {
			return fmt.Errorf("print what is at the point: %w", err)
		}
		return nil
	}
	if err := printJSON(stdout, h); err != nil {
		return fmt.Errorf("print what is at the point: %w", err)
	}
	return nil
}
