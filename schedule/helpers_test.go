package schedule_test

import (
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// utc is times in UTC.
func utc(ts []time.Time) []time.Time {
	out := make([]time.Time, len(ts))
	for i, v := range ts {
		out[i] = v.UTC()
	}
	return out
}

// codeOf is err's code.
func codeOf(err error) string { return styrmin.ErrorCode(err) }

// fieldsOf is the field messages of an EINVALID error.
func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	return styrmin.ErrorFields(err)
}

// keys is a map's keys.
func keys(m map[string]string) []string { return slices.Collect(maps.Keys(m)) }

// must is v, failing on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
