package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// `cdpprovider current --launch URL` prints the page once it has loaded,
// not the empty document of its first committed moment: the page here
// sends its heading at once and the rest of its body 1.5 s later, and the
// printed answer has both, with the Document no longer busy.
func TestCurrentLaunchWaitsForTheLoad(t *testing.T) {
	needEnv(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Slow page</title><h1>Start of the slow page</h1>`+string(bytes.Repeat([]byte(" "), 4096)))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, `<p>End of the slow page</p>`)
	}))
	defer slow.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.bin, "current", "--launch", "--chrome", env.chromePath, "--json", slow.URL+"/")
	setProcAttr(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("current --launch %s: %v\nstderr:\n%s", slow.URL, err, stderr.String())
	}
	cur := checkCurrent(t, stdout.Bytes())
	doc := findDoc(t, cur.Root, slow.URL+"/")
	if slices.Contains(doc.States, "busy") {
		t.Errorf("the Document is still busy: %v", doc.States)
	}
	find(t, doc, "Heading", "Start of the slow page")
	find(t, doc, "Text", "End of the slow page")
}
