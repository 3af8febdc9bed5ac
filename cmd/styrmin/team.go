package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
)

// newTeamCmd is the admin's command line for teams, run where the database
// is reachable, as `styrmin user` is; each change is an audit entry.
func newTeamCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Manage teams: their members and roles, and which team each deployment is in",
		Long: `A deployment belongs to one team. A user whose own role is member sees and
changes only the deployments of their teams, with their role in each (admin,
operator or read-only); the other roles hold over every team's deployments.`,
	}
	var databaseURL string
	// stores opens the database and runs f with the teams and users stored
	// there; the change of a non-empty action is audited on target.
	stores := func(cmd *cobra.Command, action string, target audit.Target, f func(ctx context.Context, t *teams.Store, u *auth.Users) error) error {
		return withTokenStores(cmd.Context(), databaseURL, func(pool *pgxpool.Pool, users *auth.Users, _ *auth.APITokens) error {
			t := teams.NewStore(pool)
			if action == "" {
				return f(cmd.Context(), t, users)
			}
			return audited(cmd.Context(), pool, action, target, func(ctx context.Context) error { return f(ctx, t, users) })
		})
	}
	run := func(cmd *cobra.Command, f func(ctx context.Context, t *teams.Store, u *auth.Users) error) error {
		return stores(cmd, "", audit.Target{}, f)
	}
	change := stores
	teamTarget := func(name string) audit.Target { return audit.Target{Kind: audit.TargetTeam, Name: name} }
	out := func(cmd *cobra.Command, format string, a ...any) { fmt.Fprintf(cmd.OutOrStdout(), format+"\n", a...) }

	cmd.AddCommand(
		&cobra.Command{
			Use: "list", Short: "List the teams with their numbers of members and live deployments", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return run(cmd, func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
					all, err := t.List(ctx)
					if err != nil {
						return err
					}
					rows := make([][]any, len(all))
					for i, team := range all {
						rows[i] = []any{team.Name, team.Members, team.Deployments}
					}
					return writeTable(cmd, []string{"TEAM", "MEMBERS", "DEPLOYMENTS"}, rows)
				})
			},
		},
		&cobra.Command{
			Use: "create TEAM", Short: "Create a team without members", Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return change(cmd, audit.ActionTeamCreate, teamTarget(args[0]), func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
					if _, err := t.Create(ctx, args[0]); err != nil {
						return err
					}
					out(cmd, "created team %s", args[0])
					return nil
				})
			},
		},
		&cobra.Command{
			Use: "delete TEAM", Short: "Delete a team that holds no deployment", Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return change(cmd, audit.ActionTeamDelete, teamTarget(args[0]), func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
					if err := t.Delete(ctx, args[0]); err != nil {
						return err
					}
					out(cmd, "deleted team %s", args[0])
					return nil
				})
			},
		},
		&cobra.Command{
			Use: "members TEAM", Short: "List a team's members with their role in it and their own", Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return run(cmd, func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
					members, err := t.Members(ctx, args[0])
					if err != nil {
						return err
					}
					rows := make([][]any, len(members))
					for i, m := range members {
						rows[i] = []any{m.Username, m.Role, m.UserRole}
					}
					return writeTable(cmd, []string{"USER", "ROLE IN TEAM", "OWN ROLE"}, rows)
				})
			},
		},
		&cobra.Command{
			Use: "add TEAM USER ROLE", Short: "Make a user a member of a team with a role there (admin, operator or read-only), or change it", Args: cobra.ExactArgs(3),
			RunE: func(cmd *cobra.Command, args []string) error {
				return change(cmd, audit.ActionTeamUpdate, teamTarget(args[0]), func(ctx context.Context, t *teams.Store, u *auth.Users) error {
					audit.Note(ctx, "user", args[1])
					role, err := auth.ParseRole(args[2])
					if err != nil {
						return err
					}
					user, err := u.GetByUsername(ctx, args[1])
					if err != nil {
						return err
					}
					if err := t.SetMember(ctx, args[0], user.ID, role); err != nil {
						return err
					}
					out(cmd, "%s is %s in team %s", user.Username, role, args[0])
					return nil
				})
			},
		},
		&cobra.Command{
			Use: "remove TEAM USER", Short: "Take a user out of a team", Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return change(cmd, audit.ActionTeamUpdate, teamTarget(args[0]), func(ctx context.Context, t *teams.Store, u *auth.Users) error {
					audit.Note(ctx, "user", args[1])
					user, err := u.GetByUsername(ctx, args[1])
					if err != nil {
						return err
					}
					if err := t.RemoveMember(ctx, args[0], user.ID); err != nil {
						return err
					}
					out(cmd, "%s is no longer a member of team %s", user.Username, args[0])
					return nil
				})
			},
		},
		&cobra.Command{
			Use: "move DEPLOYMENT TEAM", Short: "Put a deployment in another team", Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return change(cmd, audit.ActionDeploymentMove, audit.Target{Kind: audit.TargetDeployment, Name: args[0]}, func(ctx context.Context, t *teams.Store, _ *auth.Users) error {
					if err := t.Move(ctx, args[0], args[1]); err != nil {
						return err
					}
					out(cmd, "deployment %s is in team %s", args[0], args[1])
					return nil
				})
			},
		},
		newTeamPolicyCmd(change),
	)
	for _, sub := range cmd.Commands() {
		addDatabaseFlag(sub, &databaseURL)
	}
	return cmd
}

// writeTable prints a header and rows in aligned columns.
func writeTable(cmd *cobra.Command, header []string, rows [][]any) error {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = fmt.Sprint(c)
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return w.Flush()
}
