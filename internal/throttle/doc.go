// Package throttle keeps a start schedule per key (a host, an account, an
// app) and reserves start slots in it, so that every process sharing the
// schedule together starts at most one request per interval per key, plus
// a burst. It is the state behind cthrottle.
//
// # The schedule: seconds per request
//
// A key's Rate is an interval between starts (1/3 s for "3/s") and a
// burst. The state of a key is one number, tat (GCRA's "theoretical
// arrival time"): the slot the key's next request takes, burst aside. A
// reservation of one slot at now, with tolerance tau = (burst-1)*interval:
//
//	slot = max(now, tat - tau)
//	tat  = max(now, tat) + interval
//
// With burst 1 that is slot = max(now, last slot + interval). With a
// burst, up to burst slots may lie "in the past" after a pause, so burst
// requests start at once and then one per interval. For any n consecutive
// slots of a key, last - first >= (n - burst) * interval, whatever the
// callers' clocks: in any window of length L at most ceil(L/interval) +
// burst - 1 slots start. A reservation is refused, and nothing is
// reserved, when its slot is further than MaxWait from now.
//
// This is the generic cell rate algorithm, the same schedule as a token
// bucket of size burst refilled one token per interval (Local uses
// golang.org/x/time/rate's), written with one number per key and no
// floating point: times are integer microseconds, intervals rounded up
// to the microsecond.
//
// # Holds
//
// Store.Hold keeps a key from starting before a time: cfetch writes one
// when it rests a host (after a 429, or failures in a row, as long as a
// Retry-After says), so that every process reserving on the same store
// pauses that host too. A hold h
// reads as a tat of at least h + tau (the key's bucket empty at h):
//
//	T    = max(tat, now, h + tau)
//	slot = T - tau = max(max(tat, now) - tau, h)
//	tat  = T + interval
//
// so no slot is before h, and the slots after it are one interval apart
// from h on, however large the burst; the burst then refills one slot per
// interval, as after any busy spell. Holds only move forward (the later
// one wins), and an empty key or a time not ahead is a no-op. A hold
// moves the reservations made after it: slots already reserved stay as
// they are. The arithmetic is reserve's, with the derivation.
//
// # Backends
//
// OpenSQLite keeps the schedule in an SQLite file (table throttle_slots,
// so it can be the frontier's file; a table made before holds gets its
// hold_us column when opened), one statement per reservation in
// autocommit; OpenRedis in Redis, one Lua script per reservation, on the
// server's clock (with the URL's shards=K, the keys split over K slots,
// one script per shard a reservation touches); NewLocal in this process, with x/time/rate. Each
// reservation is atomic per key and may carry many keys. The three answer
// alike to the microsecond (TestBackendsAgree holds them to a reference
// implementation of reserve).
//
// # State stays small
//
// A key whose tat is in the past is the same as a key never seen: Purge
// forgets such keys (SQLite, Local), and Redis expires them by itself
// Options.Keep after their last slot. A held key is kept while its hold
// can still change an answer (until hold + tau; HoldMargin past the hold
// while no reservation has named the key's rate).
//
// # Clocks
//
// The schedule is kept in one clock. With SQLite every process is on one
// machine and passes its clock. With Redis the script reads the server's
// clock (TIME), so machines whose clocks disagree still share one
// schedule; the answer is a wait (a duration), which the caller counts
// from when the answer arrives: a late answer makes a start later, never
// earlier.
package throttle
