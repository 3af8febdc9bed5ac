package cli

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) schedulesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "schedules", Short: "List, create, update, pause, resume and delete the schedules of a deployment's manual actions"}
	cmd.AddCommand(c.schedulesListCmd(), c.schedulesCreateCmd(), c.schedulesUpdateCmd(),
		c.scheduleChangeCmd("pause", "Pause a schedule: its slots do not run until it resumes", "Paused",
			func(ctx context.Context, api *client.ClientWithResponses, name string, id int64) (int, string, error) {
				r, err := api.PauseScheduleWithResponse(ctx, name, id)
				return answer(r, err)
			}),
		c.scheduleChangeCmd("resume", "Resume a paused schedule at its first slot from now (the paused slots are not run)", "Resumed",
			func(ctx context.Context, api *client.ClientWithResponses, name string, id int64) (int, string, error) {
				r, err := api.ResumeScheduleWithResponse(ctx, name, id)
				return answer(r, err)
			}),
		c.scheduleChangeCmd("delete", "Delete a schedule (the tasks it queued stay)", "Deleted",
			func(ctx context.Context, api *client.ClientWithResponses, name string, id int64) (int, string, error) {
				r, err := api.DeleteScheduleWithResponse(ctx, name, id)
				return answer(r, err)
			}))
	return cmd
}

func (c *CLI) schedulesListCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "list NAME", Short: "List a deployment's schedules, oldest first, with their next runs", Args: cobra.ExactArgs(1)}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.ListSchedulesWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), *r.JSON200, func(t *tabwriter.Writer) { schedulesTable(t, *r.JSON200...) })
	})
	return cmd
}

// schedulesTable writes schedules as a table, a row each, the next run in local time.
func schedulesTable(t *tabwriter.Writer, schedules ...client.Schedule) {
	row(t, "ID", "ACTION", "CRON", "TIME ZONE", "PAUSED", "NEXT RUN", "KEEPS", "LAST OUTCOME")
	for _, s := range schedules {
		next := "-"
		if len(s.NextRuns) > 0 {
			next = s.NextRuns[0].In(time.Local).Format(time.RFC3339)
		}
		row(t, s.Id, s.Action, s.Cron, s.TimeZone, s.Paused, next, keeps(s), cmp.Or(s.LastOutcome, "-"))
	}
}

// keeps is a schedule's retention in words: "last 7", "30 days", "last 7 or
// 30 days", or "all" without one.
func keeps(s client.Schedule) string {
	var rules []string
	if s.KeepLast != nil {
		rules = append(rules, fmt.Sprintf("last %d", *s.KeepLast))
	}
	if s.KeepDays != nil {
		rules = append(rules, fmt.Sprintf("%d days", *s.KeepDays))
	}
	return cmp.Or(strings.Join(rules, " or "), "all")
}

func (c *CLI) schedulesCreateCmd() *cobra.Command {
	var req client.ScheduleRequest
	var overlap, missed string
	cmd := &cobra.Command{
		Use:   "create NAME ACTION --cron EXPR",
		Short: "Schedule a manual action of a deployment, its prompts given once",
		Long: "Schedule ACTION of the deployment NAME at the slots of --cron (five fields: minute hour\n" +
			"day-of-month month day-of-week, or @hourly, @daily, @weekly, @monthly, @yearly), read in\n" +
			"--time-zone. The prompt values (--set, --values) are checked as a run's and stored, secret\n" +
			"ones sealed; each slot's run is a task like the others, made as you. For an action whose\n" +
			"runs make artefacts (a backup), --keep-last and --keep-days say which to keep: after each\n" +
			"run that succeeds, the driver's prune action deletes the others.",
		Args: cobra.ExactArgs(2),
	}
	prompts := addParameters(cmd, "prompt value")
	out := addOutput(cmd)
	cmd.Flags().StringVar(&req.Cron, "cron", "", `when to run, e.g. "0 3 * * *" (03:00 every day)`)
	cmd.Flags().StringVar(&req.TimeZone, "time-zone", "UTC", "the IANA time zone the cron is read in, e.g. Europe/Oslo")
	cmd.Flags().StringVar(&overlap, "overlap", "", "while the deployment is busy: skip the slot (the server's default) or queue the run behind")
	cmd.Flags().StringVar(&missed, "missed", "", "slots missed while no worker ran: run once (the server's default) or skip them")
	var keepLast, keepDays int
	cmd.Flags().IntVar(&keepLast, "keep-last", 0, "keep the artefacts (e.g. backups) of the newest N runs and prune the rest after each run; only for an action that declares artefacts")
	cmd.Flags().IntVar(&keepDays, "keep-days", 0, "keep the artefacts of the last D days and prune the rest after each run (with --keep-last: what either keeps stays)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		if strings.TrimSpace(req.Cron) == "" {
			return usage(`Give --cron, when to run: five fields such as "0 3 * * *", or @daily.`)
		}
		if err := checkPolicies(overlap, missed); err != nil {
			return err
		}
		values, err := prompts.read()
		if err != nil {
			return err
		}
		req.Action, req.Prompts = args[1], &values
		if overlap != "" {
			req.Overlap = (*client.ScheduleRequestOverlap)(&overlap)
		}
		if missed != "" {
			req.Missed = (*client.ScheduleRequestMissed)(&missed)
		}
		if keepLast != 0 {
			req.KeepLast = &keepLast
		}
		if keepDays != 0 {
			req.KeepDays = &keepDays
		}
		r, err := api.CreateScheduleWithResponse(ctx, args[0], req)
		if err != nil {
			return err
		}
		if r.JSON201 == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), r.JSON201, func(t *tabwriter.Writer) { schedulesTable(t, *r.JSON201) })
	})
	return cmd
}

func (c *CLI) schedulesUpdateCmd() *cobra.Command {
	var req client.ScheduleUpdate
	var cron, timeZone, overlap, missed string
	var keepLast, keepDays int
	cmd := &cobra.Command{
		Use:   "update NAME ID [--cron EXPR] [--time-zone TZ] [--overlap skip|queue] [--missed once|skip] [--keep-last N] [--keep-days D]",
		Short: "Change a schedule's cron, time zone, policies or retention; what is not given stays",
		Long: "Change the schedule ID of the deployment NAME: only the flags given change, checked as a\n" +
			"new schedule's are. Its action and prompt values stay (delete it and create another to\n" +
			"change them). --keep-last 0 or --keep-days 0 removes that rule. A running schedule moves to\n" +
			"the new cron's next slot; a paused one stays paused.",
		Args: cobra.ExactArgs(2),
	}
	out := addOutput(cmd)
	f := cmd.Flags()
	f.StringVar(&cron, "cron", "", `when to run, e.g. "0 3 * * *" (03:00 every day)`)
	f.StringVar(&timeZone, "time-zone", "", "the IANA time zone the cron is read in, e.g. Europe/Oslo")
	f.StringVar(&overlap, "overlap", "", "while the deployment is busy: skip the slot or queue the run behind")
	f.StringVar(&missed, "missed", "", "slots missed while no worker ran: run once or skip them")
	f.IntVar(&keepLast, "keep-last", 0, "keep the artefacts of the newest N runs (0 removes the rule)")
	f.IntVar(&keepDays, "keep-days", 0, "keep the artefacts of the last D days (0 removes the rule)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		id, err := scheduleID(args)
		if err != nil {
			return err
		}
		if err := checkPolicies(overlap, missed); err != nil {
			return err
		}
		changed := f.Changed
		if changed("cron") {
			req.Cron = &cron
		}
		if changed("time-zone") {
			req.TimeZone = &timeZone
		}
		if changed("overlap") {
			req.Overlap = (*client.ScheduleUpdateOverlap)(&overlap)
		}
		if changed("missed") {
			req.Missed = (*client.ScheduleUpdateMissed)(&missed)
		}
		if changed("keep-last") {
			req.KeepLast = &keepLast
		}
		if changed("keep-days") {
			req.KeepDays = &keepDays
		}
		if req == (client.ScheduleUpdate{}) {
			return usage("Give what to change: --cron, --time-zone, --overlap, --missed, --keep-last or --keep-days.")
		}
		r, err := api.UpdateScheduleWithResponse(ctx, args[0], id, req)
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), r.JSON200, func(t *tabwriter.Writer) { schedulesTable(t, *r.JSON200) })
	})
	return cmd
}

// scheduleID is the schedule ID of args (NAME ID), or a usage error.
func scheduleID(args []string) (int64, error) {
	id, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || id < 1 {
		return 0, usage("%q is not a schedule's ID: styrmin schedules list %s lists them.", args[1], args[0])
	}
	return id, nil
}

// checkPolicies is a usage error unless the --overlap and --missed given
// are among theirs (or not given).
func checkPolicies(overlap, missed string) error {
	if err := oneOf("--overlap", overlap, "skip", "queue"); err != nil {
		return err
	}
	return oneOf("--missed", missed, "once", "skip")
}

// oneOf is a usage error unless value is "" or one of allowed.
func oneOf(flag, value string, allowed ...string) error {
	if value == "" || slices.Contains(allowed, value) {
		return nil
	}
	return usage("%s %q is not one of %s.", flag, value, strings.Join(allowed, ", "))
}

// responder is an answer of the generated client without a body.
type responder interface {
	StatusCode() int
	Status() string
}

// answer is r's status code and status, or err.
func answer(r responder, err error) (int, string, error) {
	if err != nil {
		return 0, "", err
	}
	return r.StatusCode(), r.Status(), nil
}

// scheduleChange pauses, resumes or deletes schedule id of deployment name,
// and returns the answer's status code and status.
type scheduleChange func(ctx context.Context, api *client.ClientWithResponses, name string, id int64) (int, string, error)

// scheduleChangeCmd is pause, resume or delete: NAME and the schedule's ID.
func (c *CLI) scheduleChangeCmd(use, short, done string, change scheduleChange) *cobra.Command {
	cmd := &cobra.Command{Use: use + " NAME ID", Short: short, Args: cobra.ExactArgs(2)}
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		id, err := scheduleID(args)
		if err != nil {
			return err
		}
		code, status, err := change(ctx, api, args[0], id)
		if err != nil {
			return err
		}
		if code != http.StatusNoContent {
			return unexpected(status)
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s schedule %d of %s.\n", done, id, args[0])
		return err
	})
	return cmd
}
