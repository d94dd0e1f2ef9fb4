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
// # Backends
//
// OpenSQLite keeps the schedule in an SQLite file (table throttle_slots,
// so it can be the frontier's file), one statement per reservation in
// autocommit; OpenRedis in Redis, one Lua script per reservation, on the
// server's clock; NewLocal in this process, with x/time/rate. Each
// reservation is atomic per key and may carry many keys. The three answer
// alike to the microsecond (TestBackendsAgree holds them to a reference
// implementation of reserve).
//
// # State stays small
//
// A key whose tat is in the past is the same as a key never seen: Purge
// forgets such keys (SQLite, Local), and Redis expires them by itself
// Options.Keep after their last slot.
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
