package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// ErrNoMatch is Find's outcome when no element matches: the command
// exits with status 1, as grep does, and 2 when the browser could not be
// read at all.
var ErrNoMatch = errors.New("no element matches")

// find reads current once, as current does, and prints the elements that
// match cfg's text and role in reading order, one a line
// (mapping.WriteMatches), or with cfg.JSON as one JSON object
// (mapping.Found) and a newline; with cfg.Limit only that many, then how
// many more. It returns ErrNoMatch when none matches, after printing
// nothing (the JSON of no matches with cfg.JSON).
func find(ctx context.Context, cfg Config, src source, stdout io.Writer, log *slog.Logger) error {
	s, err := cfg.search()
	if err != nil {
		return err
	}
	cur, err := readOnce(ctx, cfg, src, log)
	if err != nil {
		return err
	}
	limit := cfg.Limit
	if limit == 0 {
		limit = -1
	}
	found, more := s.Find(cur.Root, limit)
	if cfg.JSON {
		if err := printJSON(stdout, mapping.Found{Matches: found, More: more}); err != nil {
			return fmt.Errorf("print the matches: %w", err)
		}
	} else if err := mapping.WriteMatches(stdout, found, more); err != nil {
		return fmt.Errorf("print the matches: %w", err)
	}
	if len(found) == 0 {
		return ErrNoMatch
	}
	return nil
}

// printJSON prints v as one line of JSON, '<', '>' and '&' as they are:
// what find, at and their --server forms print with --json.
func printJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
