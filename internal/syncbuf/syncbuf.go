// Package syncbuf has the buffer one goroutine writes while another reads
// it: a subprocess's output or a logger's, which a test or a benchmark
// reads as it is written. It is for tests and benchmarks; the program
// does not use it.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent Write and String. The zero
// value is an empty buffer.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Len is how many bytes were written so far.
func (s *Buffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// Since returns what was written after the first n bytes.
func (s *Buffer) Since(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.b.Len() {
		return ""
	}
	return string(s.b.Bytes()[n:])
}
