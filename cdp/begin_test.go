package cdp

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// A read that waits for another read to end gives up when its context
// ends (a host that cancels its request, or the read's time limit), and
// a read after that one ended gets the lock.
func TestAReadWaitingForAnotherGivesUpWhenItsContextEnds(t *testing.T) {
	p := &Provider{log: discardLogger()}
	p.mu.Lock() // another read under way
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		_, _, done, err := p.begin(ctx)
		done()
		failed <- err
	}()
	for p.reading.Load() == 0 { // it waits for the lock
		select {
		case err := <-failed:
			t.Fatalf("begin returned %v before its context ended, the lock held", err)
		default:
			runtime.Gosched()
		}
	}
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("begin = %v, want the context's error", err)
	}
	if n := p.reading.Load(); n != 0 {
		t.Errorf("%d reads under way after the one that gave up", n)
	}
	p.mu.Unlock()
	if err := p.mu.lockContext(context.Background()); err != nil {
		t.Fatalf("the lock after the read that gave up: %v", err)
	}
	p.mu.Unlock()
	defer func() {
		if recover() == nil {
			t.Error("unlocking an unlocked readLock did not panic")
		}
	}()
	p.mu.Unlock()
}
