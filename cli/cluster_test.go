package cli_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// cliDriverVersion is the version of the action-less Hello Web copy this
// test deploys, so that it waits for no smoke test.
const cliDriverVersion = "1.0.3"

// TestCLIDeploysWaitsAndUpgradesOnTheCluster drives a deployment from the
// command line on the local Kubernetes with the real server and executor:
// deploy, tasks wait, an upgrade refused without --yes in a pipeline, and
// one confirmed with --yes after its review.
func TestCLIDeploysWaitsAndUpgradesOnTheCluster(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewClusterEnv(t)
	env.RemoveDeploymentsWhenDone(t)
	_, err := env.Catalog.ImportFS(context.Background(), bundledtest.Copy(t, "hello-web", cliDriverVersion, "", ""), ".", "test")
	require.NoError(t, err)
	u := newUser(t)
	login := u.run(t, env.APIToken(t, "cli-operator", auth.Operator)+"\n", "login", env.URL)
	require.Equal(t, 0, login.code, login.err)
	name := kubetest.UniqueName("cli")

	accepted := jsonOf[client.TaskAccepted](t, u.ok(t, "deploy", "hello-web", name, "--version", cliDriverVersion,
		"--set", "site_title=Before", "--set", "replicas=1", "-o", "json"))
	out := u.ok(t, "tasks", "wait", itoa(accepted.Task.Id))
	require.Contains(t, out, "Task "+itoa(accepted.Task.Id)+" (install of "+name+") succeeded")
	require.Equal(t, "Before", jsonOf[client.Deployment](t, u.ok(t, "deployments", "get", name, "-o", "json")).Parameters["site_title"])

	r := u.run(t, "", "upgrade", name, "--set", "replicas=2")
	require.Equal(t, cli.ExitUsage, r.code, r.err)
	require.Contains(t, r.err, "pass --yes")
	require.Contains(t, r.out, "+  replicas: 2", "the review is shown before the refusal")
	require.Len(t, jsonOf[client.Deployment](t, u.ok(t, "deployments", "get", name, "-o", "json")).Revisions, 1, "nothing changed")

	out = u.ok(t, "upgrade", name, "--set", "replicas=2", "--set", "site_title=After", "--yes", "--wait")
	require.Contains(t, out, "Upgrade "+name+": driver "+cliDriverVersion+" -> "+cliDriverVersion)
	require.Contains(t, out, "~ site_title: Before -> After")
	require.Contains(t, out, "-  replicas: 1")
	require.Regexp(t, `Task \d+ \(upgrade of `+name+`\) succeeded`, out)
	d := jsonOf[client.Deployment](t, u.ok(t, "deployments", "get", name, "-o", "json"))
	require.Len(t, d.Revisions, 2)
	require.Equal(t, float64(2), d.Parameters["replicas"])
}
