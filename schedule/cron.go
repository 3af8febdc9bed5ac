package schedule

import (
	"fmt"
	"strings"
	"time"
	// Zones load from the binary, whatever the host or image holds.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
)

// MaxCronLength is the longest cron expression a schedule takes.
const MaxCronLength = 100

// MaxZoneLength is the longest time zone name a schedule takes.
const MaxZoneLength = 64

// cronParser reads the five standard fields (minute hour day-of-month month
// day-of-week) and the descriptors @yearly, @monthly, @weekly, @daily and
// @hourly.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Cron is a cron expression read in a time zone: the slots of a schedule.
type Cron struct {
	expr  string
	zone  *time.Location
	sched cron.Schedule
}

// ParseCron reads expr in the IANA time zone zone. Its errors are messages
// for the cron field (cronErr) and the zone field (zoneErr).
func ParseCron(expr, zone string, now time.Time) (c Cron, cronErr, zoneErr error) {
	loc, zoneErr := parseZone(zone)
	sched, cronErr := parseExpr(strings.TrimSpace(expr))
	if cronErr != nil || zoneErr != nil {
		return Cron{}, cronErr, zoneErr
	}
	c = Cron{expr: strings.TrimSpace(expr), zone: loc, sched: sched}
	if c.Next(now).IsZero() {
		return Cron{}, fmt.Errorf("this cron expression matches no date"), nil
	}
	return c, nil, nil
}

// parseExpr reads a cron expression.
func parseExpr(expr string) (cron.Schedule, error) {
	switch {
	case expr == "":
		return nil, fmt.Errorf("give a cron expression, such as 0 3 * * * (every day at 03:00)")
	case len(expr) > MaxCronLength:
		return nil, fmt.Errorf("the cron expression has %d characters; at most %d are allowed", len(expr), MaxCronLength)
	case strings.Contains(expr, "TZ="):
		return nil, fmt.Errorf("give the time zone in its own field, not in the cron expression")
	case strings.HasPrefix(expr, "@every"):
		return nil, fmt.Errorf("@every is not a cron slot; give the minutes and hours, such as */15 * * * *")
	}
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("not a cron expression (minute hour day-of-month month day-of-week): %v", err)
	}
	return sched, nil
}

// parseZone reads an IANA time zone name, such as Europe/Oslo or UTC.
func parseZone(zone string) (*time.Location, error) {
	switch {
	case zone == "":
		return nil, fmt.Errorf("give a time zone, such as UTC or Europe/Oslo")
	case len(zone) > MaxZoneLength:
		return nil, fmt.Errorf("the time zone has %d characters; at most %d are allowed", len(zone), MaxZoneLength)
	case zone == "Local":
		return nil, fmt.Errorf("name the time zone (Local is the server's, which can change)")
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q; give an IANA name, such as UTC or Europe/Oslo", zone)
	}
	return loc, nil
}

// String is the cron expression.
func (c Cron) String() string { return c.expr }

// Zone is the time zone's name.
func (c Cron) Zone() string { return c.zone.String() }

// Next is the first slot after t (zero when there is none within five years).
func (c Cron) Next(t time.Time) time.Time { return c.sched.Next(t.In(c.zone)) }

// NextN is the n slots after t, in the schedule's time zone.
func (c Cron) NextN(t time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	for len(out) < n {
		if t = c.Next(t); t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}
