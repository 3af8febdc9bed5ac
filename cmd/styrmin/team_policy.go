package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
)

// noRule is the flag value that removes a rule of a team's policy.
const noRule = "none"

// newTeamPolicyCmd is `styrmin team policy TEAM`: it shows a team's policy,
// or changes the rules its flags name (audited as team.update by change).
func newTeamPolicyCmd(change func(cmd *cobra.Command, action string, target audit.Target, f func(ctx context.Context, t *teams.Store, u *auth.Users) error) error) *cobra.Command {
	var namespaces, drivers, maxDeployments, maxCPU, maxMemory string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			action, set := "", changedPolicyFlags(cmd)
			if len(set) > 0 {
				action = audit.ActionTeamUpdate
			}
			return change(cmd, action, audit.Target{Kind: audit.TargetTeam, Name: args[0]}, func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
				team, err := t.Get(ctx, args[0])
				if err != nil {
					return err
				}
				p := team.Policy
				if action != "" {
					audit.Note(ctx, "policy", strings.Join(set, " "))
					if err := readPolicyFlags(cmd, &p, namespaces, drivers, maxDeployments, maxCPU, maxMemory); err != nil {
						return err
					}
					if err := t.SetPolicy(ctx, args[0], p); err != nil {
						return err
					}
					if team, err = t.Get(ctx, args[0]); err != nil {
						return err
					}
				}
				return writePolicy(cmd, team)
			})
		},
	}
	cmd.Flags().StringVar(&namespaces, "namespaces", "", `namespace patterns, comma-separated ("": none allowed; "none": the global policy's)`)
	cmd.Flags().StringVar(&drivers, "drivers", "", `driver names and label:KEY=VALUE entries, comma-separated ("": no driver; "none": every driver)`)
	cmd.Flags().StringVar(&maxDeployments, "max-deployments", "", `most live deployments ("none": no quota)`)
	cmd.Flags().StringVar(&maxCPU, "max-cpu", "", `most CPU the team's deployments request together, as Kubernetes writes it: 2, 500m ("none": no quota)`)
	cmd.Flags().StringVar(&maxMemory, "max-memory", "", `most memory the team's deployments request together: 4Gi, 512Mi ("none": no quota)`)
	return cmd
}

// changedPolicyFlags are the policy flags given, with their values, for the audit entry.
func changedPolicyFlags(cmd *cobra.Command) []string {
	var set []string
	for _, name := range []string{"namespaces", "drivers", "max-deployments", "max-cpu", "max-memory"} {
		if f := cmd.Flags().Lookup(name); f.Changed {
			set = append(set, fmt.Sprintf("--%s=%s", name, f.Value))
		}
	}
	return set
}

// readPolicyFlags replaces in p the rules whose flags were given.
func readPolicyFlags(cmd *cobra.Command, p *teams.Policy, namespaces, drivers, maxDeployments, maxCPU, maxMemory string) error {
	changed := cmd.Flags().Changed
	if changed("namespaces") {
		p.Namespaces = ruleList(namespaces)
	}
	if changed("drivers") {
		p.Drivers = ruleList(drivers)
	}
	var err error
	if changed("max-deployments") {
		if p.MaxDeployments, err = ruleNumber("--max-deployments", maxDeployments, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }); err != nil {
			return err
		}
	}
	if changed("max-cpu") {
		if p.MaxCPUMillis, err = ruleNumber("--max-cpu", maxCPU, teams.ParseCPU); err != nil {
			return err
		}
	}
	if changed("max-memory") {
		if p.MaxMemoryBytes, err = ruleNumber("--max-memory", maxMemory, teams.ParseMemory); err != nil {
			return err
		}
	}
	return nil
}

// ruleList is a list flag's rule: nil for "none", else its comma-separated entries.
func ruleList(v string) []string {
	if strings.TrimSpace(v) == noRule {
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return []string{}
	}
	return strings.Split(v, ",")
}

// ruleNumber is a quota flag's rule: nil for "none", else its value read by parse.
func ruleNumber(flag, v string, parse func(string) (int64, error)) (*int64, error) {
	v = strings.TrimSpace(v)
	if v == noRule {
		return nil, nil
	}
	n, err := parse(v)
	if err != nil || n < 0 {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s %q is not a quota: give a number of at least 0, or %q to remove the quota.", flag, v, noRule)
	}
	return &n, nil
}

// writePolicy prints a team's policy, a rule a line.
func writePolicy(cmd *cobra.Command, team teams.Team) error {
	p := team.Policy
	list := func(entries []string, none string) string {
		switch {
		case entries == nil:
			return none
		case len(entries) == 0:
			return "(none allowed)"
		}
		return strings.Join(entries, ", ")
	}
	quota := func(n *int64, format func(int64) string) string {
		if n == nil {
			return "no quota"
		}
		return format(*n)
	}
	rows := [][]any{
		{"namespaces", list(p.Namespaces, "the global namespace policy's")},
		{"drivers", list(p.Drivers, "every driver")},
		{"max deployments", quota(p.MaxDeployments, func(n int64) string { return strconv.FormatInt(n, 10) })},
		{"max cpu", quota(p.MaxCPUMillis, teams.CPUString)},
		{"max memory", quota(p.MaxMemoryBytes, teams.MemoryString)},
	}
	return writeTable(cmd, []string{"TEAM " + team.Name, ""}, rows)
}
