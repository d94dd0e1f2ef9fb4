package cli

import (
	"sync"
	"time"
)

// Every calls fn every d on a goroutine of its own, the first time d from
// now, until the returned stop is called. stop waits for a call under way
// to return; it may be called more than once.
func Every(d time.Duration, fn func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			select {
			case <-quit: // both ready: stopping wins
				return
			default:
				fn()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}
