package schedule_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/schedule"
)

// at is a time in UTC, written as RFC 3339.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return v.UTC()
}

func TestParseCronRefusesWhatItCannotScheduleWithAMessagePerField(t *testing.T) {
	t.Parallel()
	now := at(t, "2026-03-01T12:00:00Z")
	for _, tc := range []struct {
		expr, zone       string
		cronErr, zoneErr string
	}{
		{"", "UTC", "give a cron expression", ""},
		{"0 3 * *", "UTC", "not a cron expression", ""},
		{"61 3 * * *", "UTC", "not a cron expression", ""},
		{"0 3 * * * *", "UTC", "not a cron expression", ""}, // no seconds field
		{"@every 1s", "UTC", "@every is not a cron slot", ""},
		{"CRON_TZ=Asia/Tokyo 0 3 * * *", "UTC", "in its own field", ""},
		{"0 0 30 2 *", "UTC", "matches no date", ""},
		{strings.Repeat("1,", 60) + "1 * * * *", "UTC", "at most 100", ""},
		{"0 3 * * *", "", "", "give a time zone"},
		{"0 3 * * *", "Mars/Olympus_Mons", "", `unknown time zone "Mars/Olympus_Mons"`},
		{"0 3 * * *", "Local", "", "name the time zone"},
		{"0 3 * * *", "../../etc/passwd", "", "unknown time zone"},
		{"bad", "Nowhere/Else", "not a cron expression", "unknown time zone"}, // both fields are checked
	} {
		_, cronErr, zoneErr := schedule.ParseCron(tc.expr, tc.zone, now)
		if tc.cronErr == "" {
			require.NoError(t, cronErr, "%q in %q", tc.expr, tc.zone)
		} else {
			require.ErrorContains(t, cronErr, tc.cronErr, "%q in %q", tc.expr, tc.zone)
		}
		if tc.zoneErr == "" {
			require.NoError(t, zoneErr, "%q in %q", tc.expr, tc.zone)
		} else {
			require.ErrorContains(t, zoneErr, tc.zoneErr, "%q in %q", tc.expr, tc.zone)
		}
	}
}

func TestACronReadsItsHoursInItsTimeZoneAcrossDaylightSaving(t *testing.T) {
	t.Parallel()
	// Oslo moves from UTC+1 to UTC+2 on 29 March 2026.
	c, cronErr, zoneErr := schedule.ParseCron("30 2 * * *", "Europe/Oslo", at(t, "2026-03-27T00:00:00Z"))
	require.NoError(t, cronErr)
	require.NoError(t, zoneErr)
	got := c.NextN(at(t, "2026-03-27T00:00:00Z"), 3)
	require.Len(t, got, 3)
	utc := make([]string, len(got))
	for i, g := range got {
		utc[i] = g.UTC().Format(time.RFC3339)
	}
	// 02:30 does not exist on the 29th in Oslo: that day has no slot (the
	// rule of robfig/cron, said in docs/operations.md); the 30th's is at
	// 02:30 summer time.
	require.Equal(t, []string{"2026-03-27T01:30:00Z", "2026-03-28T01:30:00Z", "2026-03-30T00:30:00Z"}, utc)
	require.Equal(t, "Europe/Oslo", c.Zone())
	require.Equal(t, "30 2 * * *", c.String())
}

func TestTakeRunsOneSlotOnTimeAndAppliesTheMissedPolicyAfterDowntime(t *testing.T) {
	t.Parallel()
	hourly, _, _ := schedule.ParseCron("0 * * * *", "UTC", at(t, "2026-03-01T00:00:00Z"))
	minutely, _, _ := schedule.ParseCron("* * * * *", "UTC", at(t, "2026-03-01T00:00:00Z"))
	for _, tc := range []struct {
		name   string
		c      schedule.Cron
		nextAt string
		now    string
		policy schedule.Missed
		want   schedule.Slot
	}{{
		name: "on time", c: hourly, nextAt: "2026-03-01T10:00:00Z", now: "2026-03-01T10:00:14Z", policy: schedule.MissedSkip,
		want: schedule.Slot{At: at(t, "2026-03-01T10:00:00Z"), Run: true, Next: at(t, "2026-03-01T11:00:00Z")},
	}, {
		name: "late within the grace", c: hourly, nextAt: "2026-03-01T10:00:00Z", now: "2026-03-01T10:02:00Z", policy: schedule.MissedSkip,
		want: schedule.Slot{At: at(t, "2026-03-01T10:00:00Z"), Run: true, Next: at(t, "2026-03-01T11:00:00Z")},
	}, {
		name: "down for hours, skip", c: hourly, nextAt: "2026-03-01T10:00:00Z", now: "2026-03-01T13:30:00Z", policy: schedule.MissedSkip,
		want: schedule.Slot{At: at(t, "2026-03-01T10:00:00Z"), Missed: true, Run: false, Next: at(t, "2026-03-01T14:00:00Z")},
	}, {
		name: "down for hours, once", c: hourly, nextAt: "2026-03-01T10:00:00Z", now: "2026-03-01T13:30:00Z", policy: schedule.MissedOnce,
		want: schedule.Slot{At: at(t, "2026-03-01T10:00:00Z"), Missed: true, Run: true, Next: at(t, "2026-03-01T14:00:00Z")},
	}, {
		name: "down, back just after a slot: that slot is on time", c: hourly, nextAt: "2026-03-01T10:00:00Z", now: "2026-03-01T13:00:30Z", policy: schedule.MissedSkip,
		want: schedule.Slot{At: at(t, "2026-03-01T13:00:00Z"), Run: true, Next: at(t, "2026-03-01T14:00:00Z")},
	}, {
		name: "every minute, down ten: one run for the newest", c: minutely, nextAt: "2026-03-01T10:00:00Z", now: "2026-03-01T10:10:30Z", policy: schedule.MissedSkip,
		want: schedule.Slot{At: at(t, "2026-03-01T10:10:00Z"), Run: true, Next: at(t, "2026-03-01T10:11:00Z")},
	}} {
		got := schedule.Take(tc.c, at(t, tc.nextAt), at(t, tc.now), tc.policy)
		require.True(t, tc.want.At.Equal(got.At), "%s: slot %s, want %s", tc.name, got.At, tc.want.At)
		require.True(t, tc.want.Next.Equal(got.Next), "%s: next %s, want %s", tc.name, got.Next, tc.want.Next)
		require.Equal(t, tc.want.Missed, got.Missed, tc.name)
		require.Equal(t, tc.want.Run, got.Run, tc.name)
	}
}
