package schedule

import "time"

// Overlap says what a slot does while its deployment is busy (a task of it
// queued or running).
type Overlap string

// The overlap policies.
const (
	// OverlapSkip skips the slot; the schedule's last outcome says so.
	OverlapSkip Overlap = "skip"
	// OverlapQueue queues the run behind the deployment's tasks.
	OverlapQueue Overlap = "queue"
)

// Missed says what a schedule does with the slots that passed while no
// worker ran (downtime).
type Missed string

// The missed-run policies.
const (
	// MissedOnce runs once for all the missed slots.
	MissedOnce Missed = "once"
	// MissedSkip runs none of them: the next slot is the next run.
	MissedSkip Missed = "skip"
)

// MissedAfter is how late a slot may be taken and still be on time: later,
// it was missed. Workers look every TickEvery, well within it.
const MissedAfter = 2 * time.Minute

// Slot is what a worker does with a schedule it found due.
type Slot struct {
	// At is the slot taken: the newest one on time, else the first missed.
	At time.Time
	// Missed is set when At was missed (no slot on time).
	Missed bool
	// Run says whether the action runs for it.
	Run bool
	// Next is the schedule's next slot: the first after now.
	Next time.Time
}

// Take works out the due slot of a schedule whose next slot, nextAt, is at
// or before now: every slot up to now is taken at once (one run at most).
// When a slot of them is on time (MissedAfter), the newest such runs; else
// they were all missed, and policy says whether one run stands for them.
func Take(c Cron, nextAt, now time.Time, policy Missed) Slot {
	s := Slot{At: nextAt, Run: true, Next: c.Next(now)}
	if now.Sub(nextAt) <= MissedAfter {
		return s
	}
	recent := c.Next(now.Add(-MissedAfter - time.Nanosecond))
	if !recent.IsZero() && !recent.After(now) {
		s.At = newestBy(c, recent, now)
		return s
	}
	s.Missed = true
	s.Run = policy == MissedOnce
	return s
}

// newestBy is the newest slot at or before now, from slot from on: at most
// MissedAfter of slots, a minute apart at the least.
func newestBy(c Cron, from, now time.Time) time.Time {
	for next := c.Next(from); !next.IsZero() && !next.After(now); next = c.Next(from) {
		from = next
	}
	return from
}
