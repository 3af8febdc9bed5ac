package cli

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/teams/policytext"
)

// The teams commands are `styrmin team` (run where the database is) over the
// REST API: the same words and policy flags (package policytext), each
// change checked and audited by the server.

func (c *CLI) teamsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "teams",
		Short: "List and show teams; make and delete them, manage their members and policy, move a deployment to one",
		Long: "A deployment belongs to one team. A user whose own role is member sees and changes only\n" +
			"the deployments of their teams, with their role in each (admin, operator or read-only); the\n" +
			"other roles hold over every team's deployments. Admins make and delete teams, set their policy\n" +
			"and move deployments; a team's admins manage its members too.",
	}
	cmd.AddCommand(c.teamsListCmd(), c.teamsShowCmd(), c.teamsCreateCmd(), c.teamsDeleteCmd(), c.teamsAddCmd(),
		c.teamsRemoveCmd(), c.teamsPolicyCmd(), c.teamsMoveCmd())
	return cmd
}

func (c *CLI) teamsListCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: "List the teams you see with their numbers of members and live deployments, and your role in each", Args: cobra.NoArgs}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, _ []string) error {
		r, err := api.ListTeamsWithResponse(ctx)
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		items := r.JSON200.Items
		return out.print(cmd.OutOrStdout(), items, func(t *tabwriter.Writer) {
			row(t, "TEAM", "MEMBERS", "DEPLOYMENTS", "YOUR ROLE")
			for _, team := range items {
				row(t, team.Name, team.Members, team.Deployments, teamRole(team.Role))
			}
		})
	})
	return cmd
}

// teamRole is the caller's role in a team, or "-" when they are not a member.
func teamRole(r *client.TeamRole) string {
	if r == nil {
		return "-"
	}
	return string(*r)
}

func (c *CLI) teamsShowCmd() *cobra.Command {
	return answerCmd(c, &cobra.Command{Use: "show TEAM", Short: "Show a team: its members with their roles, and its policy", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, api *client.ClientWithResponses, args []string) (*client.TeamDetail, string, error) {
			r, err := api.GetTeamWithResponse(ctx, args[0])
			if err != nil {
				return nil, "", err
			}
			return r.JSON200, r.Status(), nil
		}, func(t *tabwriter.Writer, d *client.TeamDetail, _ []string) { teamTable(t, d) })
}

func (c *CLI) teamsCreateCmd() *cobra.Command {
	return answerCmd(c, &cobra.Command{Use: "create TEAM", Short: "Make a team without members (admins)", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, api *client.ClientWithResponses, args []string) (*client.TeamDetail, string, error) {
			r, err := api.CreateTeamWithResponse(ctx, client.NewTeam{Name: args[0]})
			if err != nil {
				return nil, "", err
			}
			return r.JSON201, r.Status(), nil
		}, func(t *tabwriter.Writer, d *client.TeamDetail, _ []string) {
			row(t, "Made team "+d.Name+"; add its members: styrmin teams add "+d.Name+" USER ROLE")
		})
}

func (c *CLI) teamsAddCmd() *cobra.Command {
	return answerCmd(c, &cobra.Command{
		Use:   "add TEAM USER ROLE",
		Short: "Make a user a member of a team with a role there (admin, operator or read-only), or change it (admins and the team's admins)",
		Args:  cobra.ExactArgs(3),
	}, func(ctx context.Context, api *client.ClientWithResponses, args []string) (*client.TeamDetail, string, error) {
		r, err := api.SetTeamMemberWithResponse(ctx, args[0], args[1], client.SetTeamMemberJSONRequestBody{Role: client.TeamRole(args[2])})
		if err != nil {
			return nil, "", err
		}
		return r.JSON200, r.Status(), nil
	}, func(t *tabwriter.Writer, d *client.TeamDetail, args []string) {
		row(t, args[1]+" is "+args[2]+" in team "+d.Name+".")
	})
}

// answerCall calls the API for a command's arguments and returns the
// answer's body, nil with the answer's status for an answer it did not
// expect.
type answerCall[T any] func(ctx context.Context, api *client.ClientWithResponses, args []string) (*T, string, error)

// answerCmd gives cmd --output and has it run call, then print the body it
// returns as JSON or YAML, or as the table that table writes.
func answerCmd[T any](c *CLI, cmd *cobra.Command, call answerCall[T], table func(t *tabwriter.Writer, body *T, args []string)) *cobra.Command {
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		body, status, err := call(ctx, api, args)
		if err != nil {
			return err
		}
		if body == nil {
			return unexpected(status)
		}
		return out.print(cmd.OutOrStdout(), body, func(t *tabwriter.Writer) { table(t, body, args) })
	})
	return cmd
}

// teamTable writes a team's facts and policy, then its members a row each.
func teamTable(t *tabwriter.Writer, d *client.TeamDetail) {
	row(t, "Name:", d.Name)
	row(t, "Created:", d.CreatedAt.In(time.Local).Format(time.RFC3339))
	row(t, "Your role:", cmp.Or(teamRole(d.Role), "-"))
	row(t, "Deployments:", d.Deployments)
	for _, l := range rulesOf(d.Policy).Lines() {
		row(t, "Policy, "+l[0]+":", l[1])
	}
	row(t)
	if len(d.MemberList) == 0 {
		row(t, "No members yet: styrmin teams add "+d.Name+" USER ROLE")
		return
	}
	row(t, "USER", "ROLE IN TEAM", "OWN ROLE")
	for _, m := range d.MemberList {
		row(t, m.Username, m.Role, m.UserRole)
	}
}

func (c *CLI) teamsRemoveCmd() *cobra.Command {
	return c.noContentCmd(&cobra.Command{Use: "remove TEAM USER", Short: "Take a user out of a team (admins and the team's admins)", Args: cobra.ExactArgs(2)},
		func(ctx context.Context, api *client.ClientWithResponses, args []string) (int, string, error) {
			r, err := api.RemoveTeamMemberWithResponse(ctx, args[0], args[1])
			return answer(r, err)
		}, func(args []string) string { return args[1] + " is no longer a member of team " + args[0] + "." })
}

func (c *CLI) teamsDeleteCmd() *cobra.Command {
	return c.noContentCmd(&cobra.Command{Use: "delete TEAM", Short: "Delete a team that holds no deployment, deleted ones included (admins)", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, api *client.ClientWithResponses, args []string) (int, string, error) {
			r, err := api.DeleteTeamWithResponse(ctx, args[0])
			return answer(r, err)
		}, func(args []string) string { return "Deleted team " + args[0] + "." })
}

// noContentCmd runs change, whose answer is 204 No Content, and prints the
// line done writes of the command's arguments.
func (c *CLI) noContentCmd(cmd *cobra.Command, change func(ctx context.Context, api *client.ClientWithResponses, args []string) (int, string, error), done func(args []string) string) *cobra.Command {
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		code, status, err := change(ctx, api, args)
		if err != nil {
			return err
		}
		if code != http.StatusNoContent {
			return unexpected(status)
		}
		_, err = fmt.Fprintln(cmd.OutOrStdout(), done(args))
		return err
	})
	return cmd
}

func (c *CLI) teamsPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy TEAM",
		Short: "Show or set a team's namespaces, drivers and quotas (setting: admins)",
		Long: `Without flags, show the team's policy. Each flag replaces one rule; "none"
removes it (the global namespace policy, every driver, no quota), and a rule
not named is kept: the client reads the policy, changes the rules named and
sends the whole policy back. An install into the team is checked against it.`,
		Example: `  styrmin teams policy payments --namespaces 'pay-*,payments' --drivers redis,label:category=database
  styrmin teams policy payments --max-deployments 10 --max-cpu 4 --max-memory 8Gi
  styrmin teams policy payments --drivers none`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutput(cmd)
	flags := policytext.AddFlags(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.GetTeamWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		d := r.JSON200
		if d == nil {
			return unexpected(r.Status())
		}
		if len(flags.Given()) > 0 {
			rules := rulesOf(d.Policy)
			if err := flags.Apply(&rules); err != nil {
				return usage("%v", err)
			}
			set, err := api.SetTeamPolicyWithResponse(ctx, args[0], policyOf(rules))
			if err != nil {
				return err
			}
			if d = set.JSON200; d == nil {
				return unexpected(set.Status())
			}
		}
		return out.print(cmd.OutOrStdout(), d.Policy, func(t *tabwriter.Writer) {
			row(t, "TEAM "+d.Name, "")
			for _, l := range rulesOf(d.Policy).Lines() {
				row(t, l[0], l[1])
			}
		})
	})
	return cmd
}

// rulesOf is a team's policy as the API answers it, as policytext's rules.
func rulesOf(p client.TeamPolicy) policytext.Rules {
	r := policytext.Rules{MaxDeployments: p.MaxDeployments, MaxCPUMillis: p.MaxCpuMillis, MaxMemoryBytes: p.MaxMemoryBytes}
	if p.Namespaces != nil {
		r.Namespaces = *p.Namespaces
	}
	if p.Drivers != nil {
		r.Drivers = *p.Drivers
	}
	return r
}

// policyOf is rules as the API takes a team's policy: a nil list is no rule.
func policyOf(r policytext.Rules) client.TeamPolicy {
	p := client.TeamPolicy{MaxDeployments: r.MaxDeployments, MaxCpuMillis: r.MaxCPUMillis, MaxMemoryBytes: r.MaxMemoryBytes}
	if r.Namespaces != nil {
		p.Namespaces = &r.Namespaces
	}
	if r.Drivers != nil {
		p.Drivers = &r.Drivers
	}
	return p
}

func (c *CLI) teamsMoveCmd() *cobra.Command {
	return answerCmd(c, &cobra.Command{
		Use:   "move DEPLOYMENT TEAM",
		Short: "Put a live deployment in another team: its members see and operate it from then on, the old team's no longer do (admins)",
		Args:  cobra.ExactArgs(2),
	}, func(ctx context.Context, api *client.ClientWithResponses, args []string) (*client.DeploymentSummary, string, error) {
		r, err := api.MoveDeploymentWithResponse(ctx, args[0], client.MoveDeploymentJSONRequestBody{Team: args[1]})
		if err != nil {
			return nil, "", err
		}
		return r.JSON200, r.Status(), nil
	}, func(t *tabwriter.Writer, d *client.DeploymentSummary, _ []string) {
		row(t, "Deployment "+d.Name+" is in team "+d.Team+".")
	})
}
