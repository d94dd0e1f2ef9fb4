package frontier

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// A consumer is dead when it has not beaten for Options.ConsumerTimeout,
// or at once when it ran on this machine (same host name, same boot) and
// its process is gone: a pipeline killed with kill -9 is resumed by the
// next run without waiting.

// ThisMachine returns a Consumer for this process, without ID.
func ThisMachine() Consumer {
	m := machine()
	return Consumer{Host: m.Host, PID: os.Getpid(), Boot: m.Boot}
}

var machine = sync.OnceValue(func() Consumer {
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return Consumer{Host: host, Boot: strings.TrimSpace(string(boot))}
})

// timedOut reports whether a consumer last seen beating at beat is dead
// at now for want of heartbeats.
func (o Options) timedOut(beat, now time.Time) bool {
	return now.Sub(beat) > o.consumerTimeout()
}

// processGone reports whether consumer c ran on this machine and boot and
// its process is gone (or a zombie).
func processGone(c Consumer) bool {
	m := machine()
	return c.Boot != "" && c.Host == m.Host && c.Boot == m.Boot && c.PID > 0 && !processAlive(c.PID)
}

// processCheckEvery is how often, in the times passed to Pop, Pop looks
// at the processes of this machine's consumers (a kill(2) and a /proc
// read each): not on every turn of a pop loop.
const processCheckEvery = time.Second

// processCheck throttles those looks, per open frontier.
type processCheck struct {
	mu   sync.Mutex
	last time.Time
}

// due reports whether to look at now (always when force), and if so
// notes it.
func (p *processCheck) due(now time.Time, force bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !force && !p.last.IsZero() && !now.Before(p.last) && now.Sub(p.last) < processCheckEvery {
		return false
	}
	p.last = now
	return true
}

// newConsumerID draws a consumer id: 16 hex digits.
func newConsumerID() string {
	return fmt.Sprintf("%016x", newNonce())
}

// deadReason is why a dead-lettered request died: its consumers died
// Options.MaxAbandons times, or else its leases expired.
func (o Options) deadReason(abandons int) string {
	if max := o.maxAbandons(); max > 0 && abandons >= max {
		return reasonAbandoned
	}
	return reasonDeadLetter
}
