package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/cdpprovider/cdpprovider/mcp"
)

// current reads current once and prints it: the outline a person reads,
// or with cfg.JSON the compact JSON answer and a newline.
func current(ctx context.Context, cfg Config, src mcp.Source, stdout io.Writer) error {
	cur, err := src.Current(ctx)
	if err != nil {
		return fmt.Errorf("read current: %w", err)
	}
	if cfg.JSON {
		b, err := json.Marshal(cur)
		if err != nil {
			return fmt.Errorf("encode current: %w", err)
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	if err := mapping.Outline(stdout, cur.Root); err != nil {
		return fmt.Errorf("print current: %w", err)
	}
	return nil
}
