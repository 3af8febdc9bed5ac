package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
)

func newUserCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Manage the users who sign in to the web app",
	}
	cmd.AddCommand(newUserCreateCmd())
	return cmd
}

func newUserCreateCmd() *cobra.Command {
	var databaseURL, username, role, password string
	cmd := &cobra.Command{
		Use:   "create --username NAME --role ROLE [--password PASSWORD]",
		Short: "Create a user; without --password one is generated and printed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := auth.ParseRole(role)
			if err != nil {
				return err
			}
			pool, err := openDatabase(cmd.Context(), databaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			users, err := auth.NewUsers(pool)
			if err != nil {
				return err
			}
			password, generated := auth.PasswordOrGenerated(password)
			var u auth.User
			err = audited(cmd.Context(), pool, audit.ActionUserCreate, audit.Target{Kind: audit.TargetUser, Name: username}, func(ctx context.Context) (err error) {
				u, err = users.Create(ctx, auth.NewUser{Username: username, Password: password, Role: r})
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created user %s with the %s role\n", u.Username, u.Role)
			if generated {
				fmt.Fprintf(cmd.OutOrStdout(), "password: %s\n", password)
			}
			return nil
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	cmd.Flags().StringVar(&username, "username", "", "the user's name: lower-case letters, digits, '.', '_' or '-' (required)")
	cmd.Flags().StringVar(&role, "role", "", "admin, operator, read-only (each over every team's deployments) or member (only those of the user's teams) (required)")
	cmd.Flags().StringVar(&password, "password", "", fmt.Sprintf("at least %d characters; generated and printed when omitted", auth.MinPasswordLength))
	_ = cmd.MarkFlagRequired("username")
	_ = cmd.MarkFlagRequired("role")
	return cmd
}
