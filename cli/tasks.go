package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) tasksCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "tasks", Short: "Show tasks, wait for them and follow their logs"}
	get := &cobra.Command{Use: "get ID", Short: "Show a task with its steps", Args: cobra.ExactArgs(1)}
	getOut := addOutput(get)
	get.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		id, err := taskID(args[0])
		if err != nil {
			return err
		}
		t, err := readTask(ctx, api, id)
		if err != nil {
			return err
		}
		return getOut.print(cmd.OutOrStdout(), t, func(tw *tabwriter.Writer) { taskTable(tw, t) })
	})
	wait := c.followCmd("wait ID", "Follow a task's steps until it ends; exit 5 when it fails or is canceled", false)
	logs := c.followCmd("logs ID", "Follow a task's steps and their log lines until it ends; exit 5 when it fails or is canceled", true)
	cmd.AddCommand(get, wait, logs)
	return cmd
}

// followCmd is a command that follows the task its argument names, with
// or without its log lines, and prints the ended task as --output says.
func (c *CLI) followCmd(use, short string, logs bool) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1)}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		id, err := taskID(args[0])
		if err != nil {
			return err
		}
		return c.followAndPrint(ctx, api, cmd, out, id, logs)
	})
	return cmd
}

// taskID parses a task's id.
func taskID(arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id < 1 {
		return 0, usage("%q is not a task id: give the number a queued change printed.", arg)
	}
	return id, nil
}

// readTask reads one task.
func readTask(ctx context.Context, api *client.ClientWithResponses, id int64) (*client.Task, error) {
	r, err := api.GetTaskWithResponse(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.JSON200 == nil {
		return nil, unexpected(r.Status())
	}
	return r.JSON200, nil
}

// followAndPrint follows task id to its end, its progress on the output
// for a table and on the error output otherwise (so that the output is
// the ended task's JSON or YAML alone), and fails with ExitTaskFailed when
// the task did not succeed.
func (c *CLI) followAndPrint(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, out *outputFormat, id int64, logs bool) error {
	progress := cmd.OutOrStdout()
	if *out != "table" {
		progress = cmd.ErrOrStderr()
	}
	t, err := c.follow(ctx, api, id, progress, logs)
	if err != nil {
		return err
	}
	if *out != "table" {
		if err := out.print(cmd.OutOrStdout(), t, nil); err != nil {
			return err
		}
	}
	if t.Status != client.TaskStatusSucceeded {
		return fail(ExitTaskFailed, "Task %d %s: %s", t.Id, t.Status, t.Message)
	}
	return nil
}

// follow reads task id every poll until it ends, writing each step as it
// starts and ends (and with logs, each new log line) to w.
func (c *CLI) follow(ctx context.Context, api *client.ClientWithResponses, id int64, w io.Writer, logs bool) (*client.Task, error) {
	seen := progress{steps: map[int64]string{}, lines: map[int64]int{}}
	tick := time.NewTicker(c.poll())
	defer tick.Stop()
	for {
		t, err := readTask(ctx, api, id)
		if err != nil {
			return nil, err
		}
		seen.report(w, t, logs)
		if t.Ended {
			fmt.Fprintf(w, "Task %d (%s of %s) %s: %s\n", t.Id, t.Kind, t.Deployment, t.Status, t.Message)
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cli: follow task %d: %w", id, ctx.Err())
		case <-tick.C:
		}
	}
}

// progress is what follow has reported of a task: each step's status and
// how many of its log lines.
type progress struct {
	status string
	steps  map[int64]string
	lines  map[int64]int
}

// report writes what changed in t since the last report.
func (p *progress) report(w io.Writer, t *client.Task, logs bool) {
	if s := string(t.Status); s != p.status {
		p.status = s
		if !t.Ended {
			fmt.Fprintf(w, "Task %d (%s of %s) %s%s\n", t.Id, t.Kind, t.Deployment, s, waiting(t))
		}
	}
	for _, s := range t.Steps {
		if p.steps[s.Id] != s.Status {
			p.steps[s.Id] = s.Status
			fmt.Fprintf(w, "  step %d %s: %s%s\n", s.Position, s.Title, s.Status, suffix(s.Message))
			if s.Error != nil && *s.Error != "" {
				fmt.Fprintf(w, "    error: %s\n", *s.Error)
			}
		}
		if !logs {
			continue
		}
		for _, l := range s.Logs[min(p.lines[s.Id], len(s.Logs)):] {
			fmt.Fprintf(w, "    %s %s %s\n", l.At.Format(time.TimeOnly), l.Level, l.Message)
		}
		p.lines[s.Id] = len(s.Logs)
	}
}

// waiting says why a queued task waits.
func waiting(t *client.Task) string {
	if t.QueuePosition != nil && *t.QueuePosition > 0 {
		return fmt.Sprintf(" (%d tasks before it)", *t.QueuePosition)
	}
	return suffix(t.Message)
}

// suffix is ": message", or nothing for no message.
func suffix(message string) string {
	if message == "" {
		return ""
	}
	return ": " + message
}

// taskTable writes a task and its steps as a table.
func taskTable(tw *tabwriter.Writer, t *client.Task) {
	row(tw, "Task:", t.Id)
	row(tw, "Deployment:", t.Deployment)
	row(tw, "Kind:", t.Kind)
	row(tw, "Status:", t.Status)
	row(tw, "Message:", t.Message)
	row(tw, "By:", t.By)
	row(tw, "Created:", t.CreatedAt.Format(time.RFC3339))
	inputRows(tw, t)
	for _, s := range t.Steps {
		row(tw, fmt.Sprintf("Step %d:", s.Position), s.Title+": "+s.Status+suffix(s.Message))
	}
}

// inputRows writes what a task was asked to do, read from its inputs by
// their kind; parameter and prompt values are left out (-o json has them).
func inputRows(tw *tabwriter.Writer, t *client.Task) {
	if t.InputsUnread != nil {
		row(tw, "Inputs:", *t.InputsUnread)
		return
	}
	v, err := t.Inputs.ValueByDiscriminator()
	if err != nil {
		row(tw, "Inputs:", "not known to this client (-o json shows them)")
		return
	}
	switch in := v.(type) {
	case client.InstallInputs:
		row(tw, "Driver version:", in.DriverVersion)
		row(tw, "App version:", in.AppVersion)
		row(tw, "Namespace:", in.Namespace)
	case client.UpgradeInputs:
		row(tw, "Driver version:", in.FromDriverVersion+" -> "+in.DriverVersion)
		row(tw, "App version:", in.FromAppVersion+" -> "+in.AppVersion)
		row(tw, "Changed:", strings.Join(in.Changed, ", "))
	case client.RollbackInputs:
		row(tw, "Revision:", in.Revision)
		row(tw, "Driver version:", in.DriverVersion)
		row(tw, "App version:", in.AppVersion)
	case client.StopInputs:
		row(tw, "Components:", components(in.Components))
	case client.StartInputs:
		row(tw, "Components:", components(in.Components))
	case client.ActionInputs:
		row(tw, "Action:", in.Action)
	}
}

// components names a stop's or start's components; none is all of them.
func components(names []string) string {
	if len(names) == 0 {
		return "all"
	}
	return strings.Join(names, ", ")
}
