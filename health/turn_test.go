package health_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/health"
)

func TestTurnOfAnnouncesDegradedOncePerEpisodeAndTheRecovery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prev health.Word
		open bool
		word health.Word
		want health.Turn
	}{
		{health.Healthy, false, health.Degraded, health.TurnDegraded},
		{health.Progressing, false, health.Degraded, health.TurnDegraded},
		{health.Degraded, true, health.Degraded, ""},
		{health.Degraded, true, health.Progressing, ""},
		{health.Progressing, true, health.Healthy, health.TurnRecovered},
		{health.Degraded, true, health.Healthy, health.TurnRecovered},
		{health.Progressing, true, health.Degraded, health.TurnDegraded},
		{health.Progressing, false, health.Healthy, ""},
		{health.Healthy, false, health.Stopped, ""},
		{health.Degraded, true, health.Unknown, ""},
	} {
		require.Equal(t, c.want, health.TurnOf(c.prev, c.open, c.word), "%s (open %v) then %s", c.prev, c.open, c.word)
	}
}
