package chartrender

import (
	"context"
	"time"
)

// RenderWithin is Render within budgets of its own, for tests that need a
// bomb to stop soon.
func RenderWithin(ctx context.Context, req Request, memory int64, limit time.Duration, output int64) (string, error) {
	return render(ctx, req, budget{memory: memory, time: limit, output: output})
}

// RenderHere renders req in the test's own process, as the child does.
var RenderHere = renderHere

// Killed reports whether a child was killed by SIGKILL from outside.
var Killed = killed
