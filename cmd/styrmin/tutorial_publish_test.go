package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
	"github.com/styrmin/styrmin/cli/clitest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// publishAndDeploy goes on from the folder my-app that the tutorial's steps
// made, as its steps 7 and 8 say: the author makes a key pair, pushes the
// driver to a registry and signs it; an admin adds the registry as a
// catalogue source that requires the author's key (`styrmin sources add`); the version appears in
// the catalogue signed by that key, and an operator deploys it to the
// cluster. A tampered copy (other actions) pushed as a new version and
// signed with another key is refused with why, and cannot be deployed.
//
// The registry serves one storage two ways, as one behind a TLS proxy
// does: plain http on loopback for the author's commands (--plain-http)
// and https, with its own authority, for Styrmin, which trusts that
// authority as --registry-ca-file makes it.
func publishAndDeploy(t *testing.T, kubeconfig string) {
	ctx := context.Background()
	t.Setenv(passwordEnv, "a long passphrase")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	storage := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	authorSide := httptest.NewServer(storage)
	t.Cleanup(authorSide.Close)
	styrminSide := httptest.NewTLSServer(storage)
	t.Cleanup(styrminSide.Close)
	authorRepo := "oci://" + strings.TrimPrefix(authorSide.URL, "http://") + "/drivers/my-app"
	sourceHost := strings.TrimPrefix(styrminSide.URL, "https://")

	_, _, err := runDriverCmd(t, "keygen")
	require.NoError(t, err)
	version := pushAndSign(t, authorRepo, "cosign.key")

	cas := x509.NewCertPool()
	cas.AddCert(styrminSide.Certificate())
	app := apptest.New(t, apptest.Options{Kubeconfig: kubeconfig, Work: true, Actions: true, RegistryCAs: cas})
	app.Start(t)
	env := handlerstest.ClusterEnvOf(app)
	admin := cliAs(app.URL, env.APIToken(t, "catalogue-admin", auth.Admin))
	_, err = app.Catalog.SetChartHosts(ctx, []string{sourceHost}) // Settings, Chart hosts: a registry on loopback needs an admin's leave
	require.NoError(t, err)
	admin.ok(t, "sources", "add", "authors", "oci://"+sourceHost+"/drivers/my-app", "--signed-only", "--key", "author=cosign.pub")

	v := awaitSourceVersion(t, admin, "authors", version)
	require.Equal(t, client.SourceVersionStatusImported, v.Status, v.Reason)
	require.Equal(t, "author", v.SignedBy)

	operator := cliAs(app.URL, env.APIToken(t, "shop-operator", auth.Operator))
	name := kubetest.UniqueName("tut")
	env.RemoveWhenDone(t, name)
	out := operator.ok(t, "deploy", "my-app", name, "--version", version, "--wait")
	require.Regexp(t, `Task \d+ \(install of `+name+`\) succeeded`, out)

	// The tampered copy: other actions under a new version, signed by someone else.
	edit(t, "my-app/driver.styrmin.yml", "  version: "+version+"\n", "  version: 9.9.9\n")
	actions, err := os.ReadFile("my-app/actions.py")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile("my-app/actions.py", append(actions, "\nprint(open('/proc/1/environ').read())\n"...), 0o644))
	require.NoError(t, os.MkdirAll("mallory", 0o755))
	_, _, err = runDriverCmd(t, "keygen", "--dir", "mallory")
	require.NoError(t, err)
	tampered := pushAndSign(t, authorRepo, filepath.Join("mallory", "cosign.key"))
	require.Equal(t, "9.9.9", tampered)
	admin.ok(t, "sources", "sync", "authors")
	v = awaitSourceVersion(t, admin, "authors", tampered)
	require.Equal(t, client.SourceVersionStatusRefused, v.Status)
	require.Contains(t, v.Reason, "bad signature")
	r := operator.run(t, "deploy", "my-app", kubetest.UniqueName("tut"), "--version", tampered)
	require.NotZero(t, r.Code, "the refused version deploys")
	require.Contains(t, r.Err, "9.9.9")
}

// pushAndSign pushes the folder my-app to repo and signs it with key, as
// the tutorial's step 7 does, and returns the version pushed.
func pushAndSign(t *testing.T, repo, key string) string {
	t.Helper()
	out, _, err := runDriverCmd(t, "push", "--plain-http", "my-app", repo)
	require.NoError(t, err)
	pushed := regexp.MustCompile(`pushed (\S+):(\S+)\n`).FindStringSubmatch(out)
	require.NotNil(t, pushed, out)
	_, _, err = runDriverCmd(t, "sign", "--plain-http", "--key", key, pushed[1]+":"+pushed[2])
	require.NoError(t, err)
	return pushed[2]
}

// awaitSourceVersion waits, a minute at most, until the source's worker has
// read tag, and returns what it made of it (`styrmin sources show`).
func awaitSourceVersion(t *testing.T, admin cliUser, source, tag string) client.SourceVersion {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out := admin.ok(t, "sources", "show", source, "-o", "json")
		var got client.SourceDetail
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		for _, v := range got.Versions {
			if v.Tag == tag {
				return v
			}
		}
		require.True(t, time.Now().Before(deadline), "source %s has not read %s within a minute: %s", source, tag, out)
		time.Sleep(200 * time.Millisecond)
	}
}

// edit replaces the first old in the file at path with new.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old, path)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}

// cliUser runs the client's commands (`styrmin deploy`...) logged in through
// STYRMIN_URL and STYRMIN_TOKEN.
type cliUser struct{ env map[string]string }

func cliAs(url, token string) cliUser {
	return cliUser{env: map[string]string{cli.EnvURL: url, cli.EnvToken: token}}
}

// run runs the client's command args as the styrmin binary does.
func (u cliUser) run(t *testing.T, args ...string) clitest.Result {
	t.Helper()
	return clitest.Run(&cli.CLI{ConfigDir: t.TempDir(), Getenv: func(k string) string { return u.env[k] }, Poll: 200 * time.Millisecond}, "", args...)
}

// ok runs args and requires exit code 0.
func (u cliUser) ok(t *testing.T, args ...string) string {
	t.Helper()
	r := u.run(t, args...)
	require.Equal(t, 0, r.Code, "styrmin %s: %s", strings.Join(args, " "), r.Err)
	return r.Out
}
