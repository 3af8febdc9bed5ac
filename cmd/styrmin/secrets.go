package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/schedule"
	"github.com/styrmin/styrmin/secrets"
	"github.com/styrmin/styrmin/webhooks"
)

// addKeyFlags adds the flags of the keys that seal secret parameters to cmd.
func addKeyFlags(cmd *cobra.Command, keys *secrets.KeyConfig) {
	f := cmd.Flags()
	f.StringVar(&keys.Key, "secret-key", os.Getenv("STYRMIN_SECRET_KEY"),
		"32 random bytes as base64 (`openssl rand -base64 32`) that encrypt secret parameters; keep it safe: without it they cannot be read (env STYRMIN_SECRET_KEY)")
	f.StringVar(&keys.KeyFile, "secret-key-file", os.Getenv("STYRMIN_SECRET_KEY_FILE"), "file holding the secret key instead of --secret-key (env STYRMIN_SECRET_KEY_FILE)")
	f.StringVar(&keys.PreviousKeys, "previous-secret-keys", os.Getenv("STYRMIN_PREVIOUS_SECRET_KEYS"),
		"during a key rotation, the keys that were the secret key before, separated by commas: they open what `styrmin secrets rotate` has not re-sealed yet (env STYRMIN_PREVIOUS_SECRET_KEYS)")
	f.StringVar(&keys.PreviousKeyFile, "previous-secret-key-file", os.Getenv("STYRMIN_PREVIOUS_SECRET_KEY_FILE"),
		"file holding the previous keys, one a line, instead of --previous-secret-keys (env STYRMIN_PREVIOUS_SECRET_KEY_FILE)")
}

func newSecretsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets",
		Short: "Manage the keys that encrypt secret parameters in the database",
	}
	cmd.AddCommand(newSecretsRotateCmd())
	return cmd
}

func newSecretsRotateCmd() *cobra.Command {
	var databaseURL string
	var keys secrets.KeyConfig
	cmd := &cobra.Command{
		Use:   "rotate --secret-key-file NEW --previous-secret-key-file OLD",
		Short: "Re-seal every secret under the secret key (the new one), opening them with the previous keys",
		Long: `Re-seals every secret parameter, revision, task input and webhook secret under the secret key,
opening each with the key it was sealed with: the secret key or a previous one.
Start every server and worker with the new key as the secret key and the old one
as a previous key first, so that nothing is sealed under the old key any more;
then rotate; then remove the previous keys. An interrupted rotation leaves every
value under the old or the new key: run it again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := openDatabase(cmd.Context(), databaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			q := db.New(pool)
			var box *secrets.Box
			var n int
			err = audited(cmd.Context(), pool, audit.ActionSecretsRotate, audit.Target{Kind: audit.TargetSettings, Name: "secret key"}, func(ctx context.Context) (err error) {
				if box, err = secrets.OpenBox(ctx, q, keys); err != nil {
					return err
				}
				audit.Note(ctx, "key_id", box.KeyID().String())
				columns := append(deployment.SealedColumns(q, box.Header()), webhooks.SealedSecrets(q, box.Header()), schedule.SealedSecrets(q, box.Header()))
				if n, err = box.ResealAll(ctx, q, columns...); err != nil {
					return err
				}
				return box.ResealCheck(ctx, q)
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "re-sealed %d secrets under the key with id %s; every secret is sealed under it now: remove the previous keys from the configuration\n", n, box.KeyID())
			return nil
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	addKeyFlags(cmd, &keys)
	return cmd
}
