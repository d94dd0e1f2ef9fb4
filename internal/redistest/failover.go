package redistest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MasterOf returns the address of the master serving key's slot, as the
// first node that answers CLUSTER NODES sees it.
func (c *Cluster) MasterOf(key string) (string, error) {
	var lastErr error
	for _, a := range c.Addrs {
		if p := c.procs[a]; p == nil || p.dead() {
			continue
		}
		slotStr, err := Do(a, "CLUSTER", "KEYSLOT", key)
		if err != nil {
			lastErr = err
			continue
		}
		slot, _ := strconv.Atoi(slotStr)
		nodes, err := Do(a, "CLUSTER", "NODES")
		if err != nil {
			lastErr = err
			continue
		}
		if m := masterOfSlot(nodes, slot); m != "" {
			return m, nil
		}
		lastErr = fmt.Errorf("no master serves slot %d:\n%s", slot, nodes)
	}
	return "", fmt.Errorf("redistest: master of %q: %v", key, lastErr)
}

// masterOfSlot reads CLUSTER NODES: "ID IP:PORT@BUS FLAGS MASTER PING PONG
// EPOCH LINK SLOT…", a slot being N or N-M.
func masterOfSlot(nodes string, slot int) string {
	for _, line := range strings.Split(nodes, "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
			continue
		}
		for _, r := range f[8:] {
			lo, hi, ok := strings.Cut(r, "-")
			a, err1 := strconv.Atoi(lo)
			b := a
			var err2 error
			if ok {
				b, err2 = strconv.Atoi(hi)
			}
			if err1 == nil && err2 == nil && a <= slot && slot <= b {
				addr, _, _ := strings.Cut(f[1], "@")
				return addr
			}
		}
	}
	return ""
}

// Kill kills the node at addr (SIGKILL).
func (c *Cluster) Kill(addr string) { c.procs[addr].kill() }

// Restart starts the killed node at addr again, on its ports and with its
// cluster configuration: a master that a replica took over from comes
// back as that replica's replica. It returns once the node answers.
func (c *Cluster) Restart(addr string) error {
	old := c.procs[addr]
	p, err := old.relaunch()
	if err != nil {
		return fmt.Errorf("redistest: restart %s: %v", addr, err)
	}
	p.relaunch = old.relaunch
	c.procs[addr] = p
	return nil
}

// WaitMaster waits until a live master other than gone serves key's slot
// (a replica has taken over), and returns it.
func (c *Cluster) WaitMaster(key, gone string, within time.Duration) (string, error) {
	deadline := time.Now().Add(within)
	for {
		m, err := c.MasterOf(key)
		if err == nil && m != gone {
			return m, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("redistest: no master took over %q from %s within %v (last: %s, %v)", key, gone, within, m, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitReplicaCaughtUp waits until master's first replica has read the
// replication stream up to where the master's was when called, and says
// how far that was.
func (c *Cluster) WaitReplicaCaughtUp(master string, within time.Duration) (int64, error) {
	info, err := Do(master, "INFO", "replication")
	if err != nil {
		return 0, err
	}
	target := infoInt(info, "master_repl_offset")
	i := strings.Index(info, "slave0:")
	if i < 0 {
		return 0, fmt.Errorf("redistest: %s has no replica:\n%s", master, info)
	}
	port := ""
	for _, f := range strings.Split(strings.Fields(info[i+len("slave0:"):])[0], ",") {
		if v, ok := strings.CutPrefix(f, "port="); ok {
			port = v
		}
	}
	replica := "127.0.0.1:" + port
	deadline := time.Now().Add(within)
	for {
		rinfo, err := Do(replica, "INFO", "replication")
		if err == nil && infoInt(rinfo, "slave_read_repl_offset") >= target {
			return target, nil
		}
		if time.Now().After(deadline) {
			return target, fmt.Errorf("redistest: replica %s of %s has not read up to offset %d within %v (%v):\n%s", replica, master, target, within, err, rinfo)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// infoInt reads an integer field of an INFO reply (0 when absent).
func infoInt(info, field string) int64 {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
