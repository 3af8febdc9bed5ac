package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/teams/policytext"
)

// newTeamPolicyCmd is `styrmin team policy TEAM`: it shows a team's policy,
// or changes the rules its flags name (audited as team.update by change).
// Its flags are policytext's, which `styrmin teams policy` shares.
func newTeamPolicyCmd(change func(cmd *cobra.Command, action string, target audit.Target, f func(ctx context.Context, t *teams.Store, u *auth.Users) error) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy TEAM",
		Short: "Show or set a team's namespaces, drivers and quotas",
		Long: `Without flags, show the team's policy. Each flag replaces one rule; "none"
removes it (the global namespace policy, every driver, no quota), and a rule
not named is kept. An install into the team is checked against the policy, and
an upgrade against its CPU and memory quotas (what the pods of the chart,
rendered with the values, request).`,
		Example: `  styrmin team policy payments --namespaces 'pay-*,payments' --drivers redis,label:category=database
  styrmin team policy payments --max-deployments 10 --max-cpu 4 --max-memory 8Gi
  styrmin team policy payments --drivers none`,
		Args: cobra.ExactArgs(1),
	}
	flags := policytext.AddFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		action, set := "", flags.Given()
		if len(set) > 0 {
			action = audit.ActionTeamUpdate
		}
		return change(cmd, action, audit.Target{Kind: audit.TargetTeam, Name: args[0]}, func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
			team, err := t.Get(ctx, args[0])
			if err != nil {
				return err
			}
			if action != "" {
				audit.Note(ctx, "policy", strings.Join(set, " "))
				rules := policytext.Rules(team.Policy)
				if err := flags.Apply(&rules); err != nil {
					return err
				}
				if err := t.SetPolicy(ctx, args[0], teams.Policy(rules)); err != nil {
					return err
				}
				if team, err = t.Get(ctx, args[0]); err != nil {
					return err
				}
			}
			return writePolicy(cmd, team)
		})
	}
	return cmd
}

// writePolicy prints a team's policy, a rule a line.
func writePolicy(cmd *cobra.Command, team teams.Team) error {
	lines := policytext.Rules(team.Policy).Lines()
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l[0], l[1]}
	}
	return writeTable(cmd, []string{"TEAM " + team.Name, ""}, rows)
}
