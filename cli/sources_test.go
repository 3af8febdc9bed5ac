package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestSourcesAreAddedShownWithTheirVersionsSyncedAndDeleted(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	admin := as(t, url, d.TokenFor(t, "ada", auth.Admin))
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))
	reader := as(t, url, d.TokenFor(t, "reed", auth.ReadOnly))
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	alice, mallory := pairs[0], pairs[1]
	reg := handlerstest.NewRegistry(t)
	reg.Push(t, "1.0.1")
	reg.Sign(t, "1.0.1", alice)
	reg.Push(t, "1.0.2") // pushed by someone else, signed with their own key
	reg.Sign(t, "1.0.2", mallory)
	reg.Push(t, "1.0.3") // unsigned
	keyFile := filepath.Join(t.TempDir(), "alice.pub")
	require.NoError(t, os.WriteFile(keyFile, alice.Public, 0o600))
	notAKey := filepath.Join(t.TempDir(), "bob.pub")
	require.NoError(t, os.WriteFile(notAKey, []byte("not a key\n"), 0o600))
	repo := reg.Repo.Repository()

	r := reader.run(t, "", "sources", "add", "acme", repo, "--signed-only", "--key", keyFile)
	require.Equal(t, cli.ExitRefused, r.code, r.err)
	require.Contains(t, r.err, "needs the admin role")
	require.Equal(t, cli.ExitRefused, op.run(t, "", "sources", "add", "acme", repo).code, "an operator adds no source either")
	r = admin.run(t, "", "sources", "add", "acme", repo, "--signed-only")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "--signed-only needs at least one --key")
	r = admin.run(t, "", "sources", "add", "acme", repo, "--key", filepath.Join(t.TempDir(), "missing.pub"))
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "Cannot read the key missing")
	r = admin.run(t, "", "sources", "add", "Acme Drivers", repo+":1.0.1", "--key", notAKey)
	require.Equal(t, cli.ExitRefused, r.code, "the server checks every field: %s", r.err)
	require.Contains(t, r.err, "\n  keys: key bob: ")
	require.Contains(t, r.err, "\n  name: ")
	require.Contains(t, r.err, "\n  url: name the repository without a tag")
	require.Empty(t, jsonOf[[]client.Source](t, reader.ok(t, "sources", "list", "-o", "json")), "nothing refused was added")

	require.Equal(t, "Added oci source acme (signed only); a worker reads its versions within 15 seconds: styrmin sources show acme\n",
		admin.ok(t, "sources", "add", "acme", repo, "--signed-only", "--key", keyFile))
	r = admin.run(t, "", "sources", "add", "acme", repo)
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "A source named acme exists already.")
	added := jsonOf[client.Source](t, admin.ok(t, "sources", "add", "open", repo, "--key", "Alice Author="+keyFile, "-o", "json"))
	require.False(t, added.SignedOnly, "unsigned versions are allowed without --signed-only")
	require.Equal(t, "Alice Author", added.Keys[0].Name)
	require.Equal(t, string(alice.Public), added.Keys[0].Pem)

	table := reader.ok(t, "sources", "list")
	require.Regexp(t, `(?m)^NAME\s+KIND\s+URL\s+POLICY\s+KEYS\s+LAST SYNC\s+SYNC ERROR$`, table, "a read-only user reads the sources")
	require.Regexp(t, `(?m)^acme\s+oci\s+`+regexp.QuoteMeta(repo)+`\s+signed only\s+alice\s+never\s+-$`, table)
	require.Regexp(t, `(?m)^open\s+oci\s+\S+\s+unsigned allowed\s+Alice Author\s+never\s+-$`, table)

	reg.SyncSources(t, d.Env)
	shown := jsonOf[client.SourceDetail](t, reader.ok(t, "sources", "show", "acme", "-o", "json"))
	require.NotNil(t, shown.Source.SyncedAt)
	require.Empty(t, shown.Source.SyncError)
	byTag := map[string]client.SourceVersion{}
	for _, v := range shown.Versions {
		byTag[v.Tag] = v
	}
	require.Len(t, byTag, 3)
	require.Equal(t, client.SourceVersionStatus("imported"), byTag["1.0.1"].Status)
	require.Equal(t, "alice", byTag["1.0.1"].SignedBy)
	require.Equal(t, client.SourceVersionStatus("refused"), byTag["1.0.2"].Status)
	require.Contains(t, byTag["1.0.2"].Reason, "bad signature")
	require.Contains(t, byTag["1.0.3"].Reason, "unsigned")
	table = reader.ok(t, "sources", "show", "acme")
	require.Regexp(t, `(?m)^Policy:\s+signed only$`, table)
	require.Regexp(t, `(?m)^TAG\s+STATUS\s+SIGNED BY\s+CHECKED\s+REASON$`, table)
	require.Regexp(t, `(?m)^1\.0\.1\s+imported\s+alice\s+\S+\s+-$`, table)
	require.Regexp(t, `(?m)^1\.0\.3\s+refused\s+-\s+\S+\s+unsigned: the source requires a signature by one of its keys$`, table)
	require.Contains(t, reader.ok(t, "sources", "list"), "\nacme ", "the list shows the last sync")

	r = reader.run(t, "", "sources", "sync", "acme")
	require.Equal(t, cli.ExitRefused, r.code, "a read-only user syncs nothing")
	require.Equal(t, "Sync of acme requested: a worker reads its new tags within 15 seconds; styrmin sources show acme shows what it read.\n",
		admin.ok(t, "sources", "sync", "acme"))
	require.Equal(t, cli.ExitNotFound, admin.run(t, "", "sources", "sync", "nope").code)

	require.Equal(t, cli.ExitRefused, reader.run(t, "", "sources", "delete", "acme").code, "a read-only user deletes nothing")
	require.Equal(t, "Deleted source acme; the versions it imported stay in the catalogue.\n", admin.ok(t, "sources", "delete", "acme"))
	r = reader.run(t, "", "sources", "show", "acme")
	require.Equal(t, cli.ExitNotFound, r.code)
	require.Contains(t, r.err, "There is no source named acme.")
	v := jsonOf[client.DriverVersion](t, reader.ok(t, "drivers", "get", "hello-web", "--version", "1.0.1", "-o", "json"))
	require.Equal(t, "1.0.1", v.Version, "what the source imported stays")
	require.Equal(t, "acme", v.Source, "still naming its source")
	require.Equal(t, "alice", v.SignedBy)
	require.Regexp(t, `(?m)^Source:\s+acme, signed by alice$`, reader.ok(t, "drivers", "get", "hello-web", "--version", "1.0.1"))
	bundled := jsonOf[client.DriverVersion](t, reader.ok(t, "drivers", "get", "hello-web", "--version", "1.0.0", "-o", "json"))
	require.Empty(t, bundled.Source, "a bundled version came from no source")
	require.Empty(t, bundled.SignedBy)
	require.Equal(t, cli.ExitUsage, admin.run(t, "", "sources", "add", "acme").code)
}

func TestAnIndexSourceIsAddedFromItsHTTPSAddressAndShowsItsEntries(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	admin := as(t, url, d.TokenFor(t, "ada", auth.Admin))
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	site := handlerstest.NewIndexSite(t)
	site.Publish(t, "1.0.1", pairs[0])
	site.Publish(t, "1.0.2", pairs[1]) // signed with someone else's key
	keyFile := filepath.Join(t.TempDir(), "alice.pub")
	require.NoError(t, os.WriteFile(keyFile, pairs[0].Public, 0o600))

	r := admin.run(t, "", "sources", "add", "acme", site.URL, "--kind", "oci", "--key", keyFile)
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "\n  url: ", "an https address is no OCI repository: %s", r.err)
	r = admin.run(t, "", "sources", "add", "acme", "oci://registry.example.com/drivers", "--kind", "index")
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "is not an index's address: write https://HOST/PATH/index.yaml")

	require.Equal(t, "Added index source acme (signed only); a worker reads its versions within 15 seconds: styrmin sources show acme\n",
		admin.ok(t, "sources", "add", "acme", site.URL, "--signed-only", "--key", keyFile))
	require.Regexp(t, `(?m)^acme\s+index\s+`+regexp.QuoteMeta(site.URL)+`\s+signed only\s+alice\s+never\s+-$`, admin.ok(t, "sources", "list"))

	site.SyncSources(t, d.Env)
	table := admin.ok(t, "sources", "show", "acme")
	require.Regexp(t, `(?m)^Kind:\s+index$`, table)
	require.Regexp(t, `(?m)^hello-web@1\.0\.1\s+imported\s+alice\s+\S+\s+-$`, table)
	require.Regexp(t, `(?m)^hello-web@1\.0\.2\s+refused\s+-\s+\S+\s+bad signature: `, table)
	v := jsonOf[client.DriverVersion](t, admin.ok(t, "drivers", "get", "hello-web", "--version", "1.0.1", "-o", "json"))
	require.Equal(t, "acme", v.Source)
	require.Equal(t, "alice", v.SignedBy)
}

func TestASourcesPolicyAndKeysAreChangedByAdminsOnly(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	admin := as(t, url, d.TokenFor(t, "ada", auth.Admin))
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))
	reader := as(t, url, d.TokenFor(t, "reed", auth.ReadOnly))
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	dir := t.TempDir()
	alice, bob := filepath.Join(dir, "alice.pub"), filepath.Join(dir, "bob.pub")
	require.NoError(t, os.WriteFile(alice, pairs[0].Public, 0o600))
	require.NoError(t, os.WriteFile(bob, pairs[1].Public, 0o600))
	admin.ok(t, "sources", "add", "acme", "oci://registry.example.com/drivers", "--signed-only", "--key", alice)

	for _, who := range []*user{reader, op} {
		r := who.run(t, "", "sources", "update", "acme", "--allow-unsigned")
		require.Equal(t, cli.ExitRefused, r.code, "only admins change a source: %s", r.err)
	}
	r := admin.run(t, "", "sources", "update", "acme")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "Nothing to change")
	require.Equal(t, cli.ExitUsage, admin.run(t, "", "sources", "update", "acme", "--signed-only", "--allow-unsigned").code)
	r = admin.run(t, "", "sources", "update", "acme", "--remove-key", "alice")
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "\n  signed_only: a source that requires signatures needs at least one public key")
	r = admin.run(t, "", "sources", "update", "acme", "--key", alice)
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "\n  keys: the source trusts a key named alice already")

	require.Equal(t, "Changed source acme (signed only; keys: bob); new versions are checked under it, those read stay as they are.\n",
		admin.ok(t, "sources", "update", "acme", "--remove-key", "alice", "--key", bob))
	changed := jsonOf[client.Source](t, admin.ok(t, "sources", "update", "acme", "--allow-unsigned", "-o", "json"))
	require.False(t, changed.SignedOnly)
	require.Equal(t, "bob", changed.Keys[0].Name)
	require.Equal(t, cli.ExitNotFound, admin.run(t, "", "sources", "update", "nope", "--allow-unsigned").code)
}
