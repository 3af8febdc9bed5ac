package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) upgradeCmd() *cobra.Command {
	var version, appVersion string
	var yes bool
	cmd := &cobra.Command{
		Use:   "upgrade NAME",
		Short: "Upgrade a deployment or change its parameters, after a review of what changes",
		Long: "Ask the server for the upgrade's review (the parameter changes and the manifest diff of a Helm\n" +
			"dry run, secrets redacted), show it, and queue the upgrade once confirmed: --yes confirms\n" +
			"without asking; without it the question needs a terminal, and is refused in a pipeline.\n" +
			"Omitted parameters keep their values.",
		Args: cobra.ExactArgs(1),
	}
	params := addParameters(cmd, "parameter")
	ch := addChange(cmd)
	cmd.Flags().StringVar(&version, "version", "", "the driver version to go to (default: the current one)")
	cmd.Flags().StringVar(&appVersion, "app-version", "", "the application version to go to (default: the current one)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "queue the upgrade without asking")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		values, err := params.read()
		if err != nil {
			return err
		}
		req := client.UpgradeRequest{Parameters: (*client.ParameterValues)(&values)}
		if version != "" {
			req.DriverVersion = &version
		}
		if appVersion != "" {
			req.AppVersion = &appVersion
		}
		name := args[0]
		dryRun := true
		review, err := api.UpgradeDeploymentWithResponse(ctx, name, &client.UpgradeDeploymentParams{DryRun: &dryRun}, req)
		if err != nil {
			return err
		}
		if review.JSON200 == nil {
			return unexpected(review.Status())
		}
		// The review goes to the error output with --output json or yaml,
		// which is for the queued task alone.
		reviewOut := cmd.OutOrStdout()
		if *ch.out != "table" {
			reviewOut = cmd.ErrOrStderr()
		}
		writeReview(reviewOut, name, review.JSON200)
		if review.JSON200.DryRunError != nil {
			return fail(ExitRefused, "The upgrade's dry run failed, so it would be refused: %s", *review.JSON200.DryRunError)
		}
		if !yes {
			ok, err := confirm(cmd.InOrStdin(), cmd.ErrOrStderr(), "Upgrade "+name+"?")
			if err != nil {
				return err
			}
			if !ok {
				return fail(ExitFailed, "Nothing changed: the upgrade was not confirmed.")
			}
		}
		r, err := api.UpgradeDeploymentWithResponse(ctx, name, &client.UpgradeDeploymentParams{}, req)
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, r.JSON202, r.Status())
	})
	return cmd
}

// writeReview writes an upgrade's review as a diff: versions, parameter
// changes (+ added, - removed, ~ changed), prompts, then each changed
// manifest's unified diff.
func writeReview(w io.Writer, name string, r *client.UpgradeReview) {
	fmt.Fprintf(w, "Upgrade %s: driver %s -> %s, app %s -> %s\n", name, r.FromDriverVersion, r.DriverVersion, r.FromAppVersion, r.AppVersion)
	changed := 0
	for _, p := range r.Changes {
		var line string
		switch {
		case p.Change == client.ParameterChangeChangeUnchanged:
			continue
		case p.Secret:
			line = fmt.Sprintf("~ %s: (secret) %s", p.Name, p.Change)
		case p.Change == client.ParameterChangeChangeAdded:
			line = fmt.Sprintf("+ %s: %s", p.Name, p.To)
		case p.Change == client.ParameterChangeChangeRemoved:
			line = fmt.Sprintf("- %s: %s", p.Name, p.From)
		default:
			line = fmt.Sprintf("~ %s: %s -> %s", p.Name, p.From, p.To)
		}
		changed++
		fmt.Fprintln(w, line)
	}
	if changed == 0 {
		fmt.Fprintln(w, "No parameter changes.")
	}
	if r.Prompts != nil {
		for _, p := range *r.Prompts {
			fmt.Fprintf(w, "Prompt %s.%s (%s): %s\n", p.Action, p.Name, p.Hook, p.Value)
		}
	}
	for _, d := range r.Resources {
		if d.Change == client.ResourceDiffChangeUnchanged {
			continue
		}
		fmt.Fprintf(w, "%s %s %s\n%s", d.Change, d.Kind, d.Name, d.Diff)
		if !strings.HasSuffix(d.Diff, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// confirm asks question on a terminal and reports a yes; input that is no
// terminal cannot answer, and is a usage Error.
func confirm(in io.Reader, prompt io.Writer, question string) (bool, error) {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, usage("Not confirmed: the input is no terminal to ask on; pass --yes to upgrade after the review.")
	}
	fmt.Fprintf(prompt, "%s [y/N] ", question)
	answer, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && err != io.EOF {
		return false, fmt.Errorf("cli: read the answer: %w", err)
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes", nil
}
