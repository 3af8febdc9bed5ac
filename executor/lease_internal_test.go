package executor

import "testing"

// A recovery queues its task again before it returns, and this process may
// claim it at once: the run and the recovery are both counted, and the
// reaper leaves the task alone until both have ended.
func TestATaskRunHereWhileItsRecoveryWindsDownStaysTracked(t *testing.T) {
	var running tracked
	recovered, ok := running.addIfNone(7)
	if !ok {
		t.Fatal("nothing runs task 7 here yet: the reaper may recover it")
	}
	ran := running.add(7) // claimed here again before the recovery returned
	if _, ok := running.addIfNone(7); ok {
		t.Fatal("the reaper recovers a task this process still runs")
	}
	recovered()
	if _, ok := running.addIfNone(7); ok {
		t.Fatal("the reaper recovers a task this process still runs, once its recovery ended")
	}
	ran()
	if _, ok := running.addIfNone(7); !ok {
		t.Fatal("a task nothing here runs any more stays tracked")
	}
}
