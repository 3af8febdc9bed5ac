package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
)

func TestSchedulesAreMadeListedPausedResumedAndDeleted(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))
	reader := as(t, url, d.TokenFor(t, "reed", auth.ReadOnly))
	op.ok(t, "deploy", "hello-web", "site")

	r := op.run(t, "", "schedules", "create", "site", "fetch_page", "--cron", "@every 1m", "--time-zone", "Nowhere/Else", "--set", "path=no-slash")
	require.Equal(t, cli.ExitRefused, r.code, "the server checks the cron, the time zone and the prompts: %s", r.err)
	require.Contains(t, r.err, "\n  cron: ", "each field's message is printed")
	require.Contains(t, r.err, "\n  prompt.fetch_page.path: ")
	require.Contains(t, r.err, "\n  time_zone: ")
	r = op.run(t, "", "schedules", "create", "site", "fetch_page")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "Give --cron")
	r = op.run(t, "", "schedules", "create", "site", "fetch_page", "--cron", "0 3 * * *", "--overlap", "sometimes")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, `--overlap "sometimes" is not one of skip, queue.`)
	r = reader.run(t, "", "schedules", "create", "site", "fetch_page", "--cron", "0 3 * * *")
	require.Equal(t, cli.ExitRefused, r.code, "a read-only user schedules nothing")

	file := filepath.Join(t.TempDir(), "prompts.yaml")
	require.NoError(t, os.WriteFile(file, []byte("path: /from-the-file\n"), 0o600))
	made := jsonOf[client.Schedule](t, op.ok(t, "schedules", "create", "site", "fetch_page", "--cron", "0 3 * * *", "--time-zone", "Europe/Oslo",
		"--overlap", "queue", "--values", file, "-o", "json"))
	require.Equal(t, "fetch_page", made.Action)
	require.Equal(t, "Europe/Oslo", made.TimeZone)
	require.Equal(t, client.ScheduleOverlap("queue"), made.Overlap)
	require.Equal(t, client.ScheduleMissed("once"), made.Missed, "the server's default")
	require.Equal(t, map[string]any{"path": "/from-the-file"}, made.Prompts, "prompt values come from --values")
	require.Equal(t, "opal", made.Author)
	require.Len(t, made.NextRuns, 3)
	other := jsonOf[client.Schedule](t, op.ok(t, "schedules", "create", "site", "fetch_page", "--cron", "@daily", "--values", file,
		"--set", "path=/from-set", "-o", "json"))
	require.Equal(t, map[string]any{"path": "/from-set"}, other.Prompts, "--set wins over the file")
	require.Equal(t, "UTC", other.TimeZone, "the default time zone")
	r = op.run(t, "", "schedules", "create", "site", "fetch_page", "--cron", "@daily", "--keep-last", "7")
	require.Equal(t, cli.ExitRefused, r.code, r.err)
	require.Contains(t, r.err, "\n  keep_last: action fetch_page declares no artefacts to prune", "a retention only for an action with artefacts")

	table := reader.ok(t, "schedules", "list", "site")
	require.Regexp(t, `(?m)^ID\s+ACTION\s+CRON\s+TIME ZONE\s+PAUSED\s+NEXT RUN\s+KEEPS\s+LAST OUTCOME$`, table)
	require.Regexp(t, `(?m)^`+itoa(made.Id)+`\s+fetch_page\s+0 3 \* \* \*\s+Europe/Oslo\s+false\s+\d{4}-\S+\s+all\s`, table)

	require.Equal(t, "Paused schedule "+itoa(made.Id)+" of site.\n", op.ok(t, "schedules", "pause", "site", itoa(made.Id)))
	require.Equal(t, cli.ExitRefused, reader.run(t, "", "schedules", "resume", "site", itoa(made.Id)).code)
	list := jsonOf[[]client.Schedule](t, reader.ok(t, "schedules", "list", "site", "-o", "json"))
	require.Len(t, list, 2)
	require.True(t, list[0].Paused)
	require.Empty(t, list[0].NextRuns, "a paused schedule has no next runs")
	require.False(t, list[1].Paused)

	r = op.run(t, "", "schedules", "update", "site", itoa(made.Id))
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "Give what to change")
	r = op.run(t, "", "schedules", "update", "site", itoa(made.Id), "--time-zone", "Nowhere/Else")
	require.Equal(t, cli.ExitRefused, r.code, "an update is checked as a creation is: %s", r.err)
	require.Contains(t, r.err, "\n  time_zone: ")
	r = reader.run(t, "", "schedules", "update", "site", itoa(made.Id), "--cron", "@daily")
	require.Equal(t, cli.ExitRefused, r.code, "a read-only user changes no schedule")
	edited := jsonOf[client.Schedule](t, op.ok(t, "schedules", "update", "site", itoa(made.Id), "--cron", "30 4 * * *", "--overlap", "skip", "-o", "json"))
	require.Equal(t, "30 4 * * *", edited.Cron)
	require.Equal(t, client.ScheduleOverlap("skip"), edited.Overlap)
	require.Equal(t, "Europe/Oslo", edited.TimeZone, "what is not given stays")
	require.Equal(t, map[string]any{"path": "/from-the-file"}, edited.Prompts, "the prompt values stay")
	require.True(t, edited.Paused, "a paused schedule stays paused through an edit")

	op.ok(t, "schedules", "resume", "site", itoa(made.Id))
	list = jsonOf[[]client.Schedule](t, reader.ok(t, "schedules", "list", "site", "-o", "json"))
	require.False(t, list[0].Paused)
	require.Equal(t, "Deleted schedule "+itoa(made.Id)+" of site.\n", op.ok(t, "schedules", "delete", "site", itoa(made.Id)))
	r = op.run(t, "", "schedules", "delete", "site", itoa(made.Id))
	require.Equal(t, cli.ExitNotFound, r.code, r.err)
	require.Len(t, jsonOf[[]client.Schedule](t, op.ok(t, "schedules", "list", "site", "-o", "json")), 1)

	r = op.run(t, "", "schedules", "pause", "site", "first")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, `"first" is not a schedule's ID`)
	require.Equal(t, cli.ExitNotFound, op.run(t, "", "schedules", "list", "nope").code)
}
