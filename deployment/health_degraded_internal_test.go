package deployment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/health"
)

func TestKnownWordsWriteOnlyAChangeOfAKnownWord(t *testing.T) {
	t.Parallel()
	var k knownWords
	for i, step := range []struct {
		word    health.Word
		changed bool
	}{
		{health.Degraded, true},    // the first read since the start: written (the database knows whether it is a turn)
		{health.Degraded, false},   // every later poll of the same word: nothing
		{health.Unknown, false},    // the cluster did not answer: no word
		{health.Degraded, false},   // nor does its answer again change anything
		{health.Healthy, true},     // healed
		{health.Progressing, true}, // an upgrade rolls
		{health.Degraded, true},    // turned
	} {
		require.Equal(t, step.changed, k.changed("shop", step.word), "step %d: %s", i, step.word)
	}

	k.keep(map[string]bool{"shop": true})
	require.False(t, k.changed("shop", health.Degraded), "a kept deployment keeps its word")
	require.True(t, k.changed("other", health.Degraded), "each deployment its own word")
	k.keep(map[string]bool{})
	require.True(t, k.changed("shop", health.Degraded), "a forgotten deployment is written again at its next read")
	k.forget("shop")
	require.True(t, k.changed("shop", health.Degraded), "and so is one whose write failed")
}
