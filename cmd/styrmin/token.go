package main

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
)

// commandLine is who revokes a token from the command line: whoever reaches
// the database can change anything, so it acts as an admin of no user id.
var commandLine = auth.User{Username: "the command line", Role: auth.Admin}

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage the personal API tokens that scripts send to the REST API (Authorization: Bearer)",
	}
	cmd.AddCommand(newTokenCreateCmd(), newTokenListCmd(), newTokenRevokeCmd())
	return cmd
}

func newTokenCreateCmd() *cobra.Command {
	var databaseURL, username, name, expires, team string
	cmd := &cobra.Command{
		Use:   "create --username NAME [--name NAME] [--expires 30d] [--team TEAM]",
		Short: "Create an API token for a user and print it, and only it, on stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lifetime, err := auth.ParseAPITokenLifetime(expires)
			if err != nil {
				return fmt.Errorf("--expires: %w", err)
			}
			return withTokenStores(cmd.Context(), databaseURL, func(pool *pgxpool.Pool, users *auth.Users, tokens *auth.APITokens) error {
				u, err := users.GetByUsername(cmd.Context(), username)
				if err != nil {
					return err
				}
				now := time.Now()
				if name == "" {
					name = "created on the command line " + now.UTC().Format(time.DateOnly)
				}
				var created auth.CreatedAPIToken
				// The entry names the new token's id, and whose it is.
				err = audited(cmd.Context(), pool, audit.ActionTokenCreate, audit.Target{Kind: audit.TargetToken}, func(ctx context.Context) (err error) {
					audit.Note(ctx, "user", u.Username)
					created, err = tokens.CreateInTeam(ctx, auth.Credential{User: u}, name, auth.APITokenExpiry(now, lifetime), team)
					return err
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "created API token %d %q for %s%s, expires %s; it is not shown again\n",
					created.ID, created.Name, u.Username, teamText(created.Team), expiryText(created.ExpiresAt))
				fmt.Fprintln(cmd.OutOrStdout(), created.Secret)
				return nil
			})
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	cmd.Flags().StringVar(&username, "username", "", "the user the token acts as, with their role (required)")
	cmd.Flags().StringVar(&name, "name", "", `what the token is for; default "created on the command line <date>"`)
	cmd.Flags().StringVar(&expires, "expires", "30d", `lifetime: 12h, 30d, 2w, 1y, ... or "never"`)
	cmd.Flags().StringVar(&team, "team", "", "narrow the token to one of the user's teams: it acts there only, with their role in it")
	_ = cmd.MarkFlagRequired("username")
	return cmd
}

func newTokenListCmd() *cobra.Command {
	var databaseURL, username string
	cmd := &cobra.Command{
		Use:   "list --username NAME",
		Short: "List a user's API tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withTokenStores(cmd.Context(), databaseURL, func(_ *pgxpool.Pool, users *auth.Users, tokens *auth.APITokens) error {
				u, err := users.GetByUsername(cmd.Context(), username)
				if err != nil {
					return err
				}
				list, err := tokens.List(cmd.Context(), u)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tNAME\tTEAM\tCREATED\tEXPIRES\tLAST USED")
				for _, t := range list {
					fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, cmp.Or(t.Team, "(all)"), t.CreatedAt.UTC().Format(time.RFC3339), expiryText(t.ExpiresAt), expiryText(t.LastUsedAt))
				}
				return w.Flush()
			})
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	cmd.Flags().StringVar(&username, "username", "", "the user whose tokens to list (required)")
	_ = cmd.MarkFlagRequired("username")
	return cmd
}

func newTokenRevokeCmd() *cobra.Command {
	var databaseURL string
	var id int64
	cmd := &cobra.Command{
		Use:   "revoke --id N",
		Short: "Revoke an API token of any user (its id is in `token list`)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withTokenStores(cmd.Context(), databaseURL, func(pool *pgxpool.Pool, _ *auth.Users, tokens *auth.APITokens) error {
				target := audit.Target{Kind: audit.TargetToken, Name: strconv.FormatInt(id, 10)}
				err := audited(cmd.Context(), pool, audit.ActionTokenRevoke, target, func(ctx context.Context) error {
					return tokens.Revoke(ctx, commandLine, id)
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "revoked API token %d\n", id)
				return nil
			})
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	cmd.Flags().Int64Var(&id, "id", 0, "the token's id (required)")
	_ = cmd.MarkFlagRequired("id")
	return cmd
}

// withTokenStores runs f with the database at url and its user and token
// stores (the token and team commands).
func withTokenStores(ctx context.Context, url string, f func(*pgxpool.Pool, *auth.Users, *auth.APITokens) error) error {
	pool, err := openDatabase(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	users, err := auth.NewUsers(pool)
	if err != nil {
		return err
	}
	return f(pool, users, auth.NewAPITokens(pool))
}

// teamText says which team a token acts in, if only one.
func teamText(team string) string {
	if team == "" {
		return ""
	}
	return " in the team " + team + " only"
}

// expiryText shows an optional time in UTC, or "never".
func expiryText(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}
