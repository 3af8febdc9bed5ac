package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

// maxKeyFile bounds a public key file: a PEM public key is a few hundred bytes.
const maxKeyFile = 64 << 10

func (c *CLI) sourcesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "sources", Short: "List, add, show, sync and delete the catalogue's sources (OCI repositories or https indexes of driver bundles)"}
	cmd.AddCommand(c.sourcesListCmd(), c.sourcesAddCmd(), c.sourcesShowCmd(), c.sourcesUpdateCmd(),
		c.sourceChangeCmd("sync", "Sync a source now: a worker reads its new tags within 15 seconds (admins)",
			"Sync of %s requested: a worker reads its new tags within 15 seconds; styrmin sources show %[1]s shows what it read.\n",
			http.StatusAccepted, func(ctx context.Context, api *client.ClientWithResponses, name string) (int, string, error) {
				r, err := api.SyncSourceWithResponse(ctx, name)
				return answer(r, err)
			}),
		c.sourceChangeCmd("delete", "Delete a source; the versions it imported stay in the catalogue (admins)",
			"Deleted source %s; the versions it imported stay in the catalogue.\n",
			http.StatusNoContent, func(ctx context.Context, api *client.ClientWithResponses, name string) (int, string, error) {
				r, err := api.DeleteSourceWithResponse(ctx, name)
				return answer(r, err)
			}))
	return cmd
}

func (c *CLI) sourcesListCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: "List the catalogue's sources with their last sync", Args: cobra.NoArgs}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, _ []string) error {
		r, err := api.ListSourcesWithResponse(ctx)
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		items := r.JSON200.Items
		return out.print(cmd.OutOrStdout(), items, func(t *tabwriter.Writer) {
			row(t, "NAME", "KIND", "URL", "POLICY", "KEYS", "LAST SYNC", "SYNC ERROR")
			for _, s := range items {
				row(t, s.Name, s.Kind, s.Url, policy(s), keyNames(s), lastSync(s), cmp.Or(s.SyncError, "-"))
			}
		})
	})
	return cmd
}

// policy is a source's signature policy in words.
func policy(s client.Source) string {
	if s.SignedOnly {
		return "signed only"
	}
	return "unsigned allowed"
}

// keyNames are the names of a source's keys, or "-".
func keyNames(s client.Source) string {
	names := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		names[i] = k.Name
	}
	return cmp.Or(strings.Join(names, ", "), "-")
}

// lastSync is when a source's last sync ended, in local time, or "never".
func lastSync(s client.Source) string {
	if s.SyncedAt == nil {
		return "never"
	}
	return s.SyncedAt.In(time.Local).Format(time.RFC3339)
}

func (c *CLI) sourcesAddCmd() *cobra.Command {
	var signedOnly bool
	var kind string
	var keyFiles []string
	cmd := &cobra.Command{
		Use:   "add NAME oci://HOST/REPOSITORY|https://HOST/PATH/index.yaml [--kind oci|index] [--signed-only] [--key [KEY_NAME=]FILE]...",
		Short: "Add a catalogue source: an OCI repository whose tags, or an https index whose entries, are driver versions (admins)",
		Long: "Add the OCI repository (oci://HOST/REPOSITORY, without a tag) or the https index\n" +
			"(https://HOST/PATH/index.yaml, listing bundle archives with their sha256 digests: see\n" +
			"docs/driver-tutorial.md) as the catalogue source NAME; --kind says which, the address's\n" +
			"scheme when not given. A worker reads every tag (every entry) of it as a driver version, then\n" +
			"every 10 minutes the new ones, and imports each into the catalogue marked with the source, or\n" +
			"refuses it with the reason.\n" +
			"--key trusts a public key (the .pub file `styrmin driver keygen` writes), named KEY_NAME\n" +
			"(the file's name without its extension when not given): a version signed by it shows the\n" +
			"name as its signer. With --signed-only, a version not signed by one of the keys is refused.",
		Args: cobra.ExactArgs(2),
	}
	out := addOutput(cmd)
	cmd.Flags().BoolVar(&signedOnly, "signed-only", false, "refuse every version that is not signed by one of the --key keys")
	cmd.Flags().StringVar(&kind, "kind", "", "oci (an OCI repository) or index (an https index.yaml); the address's scheme says when not given")
	cmd.Flags().StringArrayVar(&keyFiles, "key", nil, "a public key file to trust, as [KEY_NAME=]FILE (repeat for more keys)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		keys, err := readKeys(keyFiles)
		if err != nil {
			return err
		}
		if signedOnly && len(keys) == 0 {
			return usage("--signed-only needs at least one --key: the public keys a version must be signed by.")
		}
		ns := client.NewSource{Name: args[0], Url: args[1], SignedOnly: &signedOnly, Keys: &keys}
		if kind != "" {
			ns.Kind = &kind
		}
		r, err := api.CreateSourceWithResponse(ctx, ns)
		if err != nil {
			return err
		}
		if r.JSON201 == nil {
			return unexpected(r.Status())
		}
		s := r.JSON201
		return out.print(cmd.OutOrStdout(), s, func(t *tabwriter.Writer) {
			row(t, "Added "+string(s.Kind)+" source "+s.Name+" ("+policy(*s)+"); a worker reads its versions within 15 seconds: styrmin sources show "+s.Name)
		})
	})
	return cmd
}

func (c *CLI) sourcesUpdateCmd() *cobra.Command {
	var signedOnly, allowUnsigned bool
	var keyFiles, removeKeys []string
	cmd := &cobra.Command{
		Use:   "update NAME [--signed-only|--allow-unsigned] [--key [KEY_NAME=]FILE]... [--remove-key KEY_NAME]...",
		Short: "Change a source's signature policy or trusted keys (admins)",
		Long: "Change the source NAME: --signed-only or --allow-unsigned sets its policy, --key trusts one more\n" +
			"public key (named KEY_NAME, or after the file), --remove-key trusts a key no more (give both to\n" +
			"replace a key). What is not given stays. The versions the source read stay as they are, imported\n" +
			"or refused: its next sync checks new versions only, under the new policy and keys.",
		Args: cobra.ExactArgs(1),
	}
	out := addOutput(cmd)
	cmd.Flags().BoolVar(&signedOnly, "signed-only", false, "refuse every new version that is not signed by one of the source's keys")
	cmd.Flags().BoolVar(&allowUnsigned, "allow-unsigned", false, "import unsigned new versions too")
	cmd.Flags().StringArrayVar(&keyFiles, "key", nil, "a public key file to trust, as [KEY_NAME=]FILE (repeat for more keys)")
	cmd.Flags().StringArrayVar(&removeKeys, "remove-key", nil, "the name of a key to trust no more (repeat for more keys)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		if signedOnly && allowUnsigned {
			return usage("Give --signed-only or --allow-unsigned, not both.")
		}
		ch := client.SourceChange{}
		if signedOnly || allowUnsigned {
			ch.SignedOnly = &signedOnly
		}
		if len(keyFiles) > 0 {
			keys, err := readKeys(keyFiles)
			if err != nil {
				return err
			}
			ch.AddKeys = &keys
		}
		if len(removeKeys) > 0 {
			ch.RemoveKeys = &removeKeys
		}
		if ch == (client.SourceChange{}) {
			return usage("Nothing to change: give --signed-only or --allow-unsigned, --key or --remove-key.")
		}
		r, err := api.UpdateSourceWithResponse(ctx, args[0], ch)
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		s := r.JSON200
		return out.print(cmd.OutOrStdout(), s, func(t *tabwriter.Writer) {
			row(t, "Changed source "+s.Name+" ("+policy(*s)+"; keys: "+keyNames(*s)+"); new versions are checked under it, those read stay as they are.")
		})
	})
	return cmd
}

// readKeys reads the --key values.
func readKeys(values []string) ([]client.SourceKey, error) {
	keys := make([]client.SourceKey, 0, len(values))
	for _, v := range values {
		k, err := readKey(v)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// readKey reads a --key value, [KEY_NAME=]FILE.
func readKey(value string) (client.SourceKey, error) {
	name, file, named := strings.Cut(value, "=")
	if !named {
		file = value
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if name == "" || file == "" {
		return client.SourceKey{}, usage("--key %q is not [KEY_NAME=]FILE, such as --key alice=cosign.pub.", value)
	}
	f, err := os.Open(file)
	if err != nil {
		return client.SourceKey{}, usage("Cannot read the key %s: %v.", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return client.SourceKey{}, usage("Cannot read the key %s: %v.", name, err)
	}
	if len(data) > maxKeyFile {
		return client.SourceKey{}, usage("The key file %s is larger than %d KiB: a public key (the .pub file styrmin driver keygen writes) is far smaller.", file, maxKeyFile>>10)
	}
	return client.SourceKey{Name: name, Pem: string(data)}, nil
}

func (c *CLI) sourcesShowCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "show NAME", Short: "Show a source and the versions it read: imported, or refused with why", Args: cobra.ExactArgs(1)}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.GetSourceWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		d := r.JSON200
		return out.print(cmd.OutOrStdout(), d, func(t *tabwriter.Writer) { sourceTable(t, d) })
	})
	return cmd
}

// sourceTable writes a source's fields, then its versions a row each.
func sourceTable(t *tabwriter.Writer, d *client.SourceDetail) {
	s := d.Source
	row(t, "Name:", s.Name)
	row(t, "Kind:", string(s.Kind))
	row(t, "URL:", s.Url)
	row(t, "Policy:", policy(s))
	row(t, "Keys:", keyNames(s))
	row(t, "Added:", s.CreatedAt.In(time.Local).Format(time.RFC3339)+" by "+s.CreatedBy)
	row(t, "Last sync:", lastSync(s))
	if s.SyncError != "" {
		row(t, "Sync error:", s.SyncError)
	}
	row(t, "Next sync:", s.NextSyncAt.In(time.Local).Format(time.RFC3339))
	row(t)
	if len(d.Versions) == 0 {
		row(t, "No version read yet.")
		return
	}
	row(t, "TAG", "STATUS", "SIGNED BY", "CHECKED", "REASON")
	for _, v := range d.Versions {
		row(t, v.Tag, v.Status, cmp.Or(v.SignedBy, "-"), v.CheckedAt.In(time.Local).Format(time.RFC3339), cmp.Or(v.Reason, "-"))
	}
}

// sourceChange syncs or deletes the source name and returns the answer's
// status code and status.
type sourceChange func(ctx context.Context, api *client.ClientWithResponses, name string) (int, string, error)

// sourceChangeCmd is sync or delete of the source NAME: done is the message
// printed (with the name) when the server answers want.
func (c *CLI) sourceChangeCmd(use, short, done string, want int, change sourceChange) *cobra.Command {
	cmd := &cobra.Command{Use: use + " NAME", Short: short, Args: cobra.ExactArgs(1)}
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		code, status, err := change(ctx, api, args[0])
		if err != nil {
			return err
		}
		if code != want {
			return unexpected(status)
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), done, args[0])
		return err
	})
	return cmd
}
