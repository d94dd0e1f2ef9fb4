package frontier

import (
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

// consumerDead reports whether consumer c, last seen beating at beat, is
// dead at now.
func (o Options) consumerDead(c Consumer, beat, now time.Time) bool {
	if now.Sub(beat) > o.consumerTimeout() {
		return true
	}
	m := machine()
	return c.Boot != "" && c.Host == m.Host && c.Boot == m.Boot && c.PID > 0 && !processAlive(c.PID)
}

// newConsumerID draws a consumer id: 16 hex digits.
func newConsumerID() string {
	return formatLease(1, newNonce())[2:]
}

// deadReason is why a dead-lettered request died: its consumers died
// Options.MaxAbandons times, or else its leases expired.
func (o Options) deadReason(abandons int) string {
	if max := o.maxAbandons(); max > 0 && abandons >= max {
		return reasonAbandoned
	}
	return reasonDeadLetter
}
