package deployment_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/teams"
)

// setupTeam is a fixture with the team payments under policy.
func setupTeam(t *testing.T, policy teams.Policy) deploymenttest.Fixture {
	t.Helper()
	f := deploymenttest.Setup(t, nil)
	store := teams.NewStore(f.Pool)
	_, err := store.Create(context.Background(), "payments")
	require.NoError(t, err)
	require.NoError(t, store.SetPolicy(context.Background(), "payments", policy))
	return f
}

// inTeam is req into team and namespace.
func inTeam(req *deployment.Install, team, namespace string) *deployment.Install {
	req.Team, req.Namespace = team, namespace
	return req
}

// requireNothingRecorded fails unless no deployment was recorded.
func requireNothingRecorded(t *testing.T, f deploymenttest.Fixture) {
	t.Helper()
	list, err := f.Svc.List(context.Background(), deployment.ListOptions{IncludeDeleted: true})
	require.NoError(t, err)
	require.Empty(t, list.Items, "nothing was recorded, nothing queued")
}

func TestATeamsNamespacesReplaceTheGlobalPatternsForItsDeployments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{Namespaces: []string{"pay-*", "kube-*"}})

	_, err := f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), "payments", "shop"))
	require.Equal(t, map[string]string{"namespace": "namespace shop is not allowed for the team payments: its deployments may go into pay-*, kube-*; choose one of those, or ask an admin to change the team's namespaces"},
		deploymenttest.FieldsOf(t, err))
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), "payments", "kube-system"))
	require.Equal(t, map[string]string{"namespace": "namespace kube-system is reserved for Kubernetes or Styrmin itself; deploy elsewhere, or ask an admin to allow kube-system by its exact name in the team's namespaces"},
		deploymenttest.FieldsOf(t, err), "a team's pattern does not allow a reserved namespace either")
	requireNothingRecorded(t, f)

	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), "payments", "pay-shop"))
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("blog"), teams.Default, "blog"))
	require.NoError(t, err, "a team without namespaces of its own follows the global policy (any namespace)")

	require.NoError(t, teams.NewStore(f.Pool).SetPolicy(ctx, "payments", teams.Policy{Namespaces: []string{}}))
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("cart"), "payments", "pay-cart"))
	require.Equal(t, map[string]string{"namespace": "the team payments may deploy into no namespace; ask an admin to set the team's namespaces"},
		deploymenttest.FieldsOf(t, err))
}

func TestANamespaceHoldingAnotherTeamsDeploymentIsRefusedButToGlobalAdmins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{})
	_, err := f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), teams.Default, "shop"))
	require.NoError(t, err)

	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.Redis("cache"), "payments", "shop"))
	require.Equal(t, map[string]string{"namespace": "namespace shop belongs to team default's deployments; choose a namespace of your team"},
		deploymenttest.FieldsOf(t, err))
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.Redis("cache"), teams.Default, "shop"))
	require.NoError(t, err, "the namespace's own team deploys there")
	admin := inTeam(deploymenttest.Redis("pay-cache"), "payments", "shop")
	admin.Admin = true
	_, err = f.Svc.Queue(ctx, admin)
	require.NoError(t, err, "a global admin may share a namespace between teams")
}

func TestATeamDeploysOnlyTheDriversItsPolicyNamesOrLabels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{Drivers: []string{"redis", "label:tier=stateless"}})

	_, err := f.Svc.Queue(ctx, inTeam(deploymenttest.Postgres("db"), "payments", ""))
	require.Equal(t, map[string]string{"team": "the team payments may not deploy the driver postgresql: it may deploy redis, label:tier=stateless; choose another team, or ask an admin to allow the driver for the team"},
		deploymenttest.FieldsOf(t, err))
	requireNothingRecorded(t, f)
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.Redis("cache"), "payments", ""))
	require.NoError(t, err, "named")
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), "payments", ""))
	require.NoError(t, err, "labelled tier=stateless")
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.Postgres("db"), teams.Default, ""))
	require.NoError(t, err, "a team without a driver rule deploys every driver")

	require.NoError(t, teams.NewStore(f.Pool).SetPolicy(ctx, "payments", teams.Policy{Drivers: []string{}}))
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.Redis("cache2"), "payments", ""))
	require.Contains(t, deploymenttest.FieldsOf(t, err)["team"], "it may deploy no driver")
}

func TestAnUpgradeToADriverVersionItsTeamMayNotDeployIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{Drivers: []string{"label:tier=stateless"}})
	edge := bundledtest.AsVersion(t, "hello-web", "1.1.0")
	edge["driver.styrmin.yml"] = &fstest.MapFile{Data: []byte(strings.Replace(string(edge["driver.styrmin.yml"].Data), "tier: stateless", "tier: edge", 1))}
	_, err := f.Catalog.ImportFS(ctx, edge, ".", "test")
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), "payments", ""))
	require.NoError(t, err)

	_, err = f.Svc.Queue(ctx, &deployment.Upgrade{Name: "shop", DriverVersion: "1.1.0", By: "alice"})
	require.Equal(t, map[string]string{"driver_version": "the team payments may not deploy version 1.1.0 of the driver hello-web: it may deploy label:tier=stateless; keep the current version, or ask an admin to allow the driver for the team"},
		deploymenttest.FieldsOf(t, err), "version 1.1.0 is labelled tier=edge")
	_, err = f.Svc.Queue(ctx, &deployment.Upgrade{Name: "shop", Parameters: deployment.FormInput{"site_title": "Shop", "replicas": "3"}, By: "alice"})
	require.NoError(t, err, "an upgrade that keeps the driver version is not checked again")
}

// TestAnInstallNamingNoTeamGoesIntoTheOneTeamItMayDeployInto: an installer
// who may deploy into one team only (a token narrowed to it, a member who
// operates one team) and names none installs into that team; one who may
// deploy into several, or everywhere, installs into the team default, and
// is refused there when it is not one of theirs.
func TestAnInstallNamingNoTeamGoesIntoTheOneTeamItMayDeployInto(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{})
	store := teams.NewStore(f.Pool)
	payments, err := store.Get(ctx, "payments")
	require.NoError(t, err)
	search, err := store.Create(ctx, "search")
	require.NoError(t, err)
	def, err := store.Get(ctx, teams.Default)
	require.NoError(t, err)
	install := func(name string, allowed []int64) error {
		req := deploymenttest.HelloWeb(name)
		req.TeamsAllowed = allowed
		_, err := f.Svc.Queue(ctx, req)
		return err
	}

	require.NoError(t, install("shop", []int64{payments.ID}))
	require.Equal(t, payments.ID, deploymenttest.MustGet(t, f, "shop").TeamID, "the one team it may deploy into")
	require.NoError(t, install("blog", nil))
	require.Equal(t, def.ID, deploymenttest.MustGet(t, f, "blog").TeamID, "an installer of every team")
	require.NoError(t, install("wiki", []int64{def.ID, payments.ID}))
	require.Equal(t, def.ID, deploymenttest.MustGet(t, f, "wiki").TeamID, "several teams, default among them")
	require.Equal(t, map[string]string{"team": "you may not deploy into the team default: that needs the operator role in it; choose one of your teams or ask an admin"},
		deploymenttest.FieldsOf(t, install("cart", []int64{payments.ID, search.ID})), "several teams: the installer names one")
}

// TestTheUpgradeFormOffersTheVersionsTheTeamMayDeploy: hello-web 1.1.0 is
// labelled tier=edge, 1.2.0 tier=stateless again; the form of a deployment
// of payments (label:tier=stateless) offers 1.2.0 and the current 1.0.0,
// never 1.1.0, which a crafted choice is refused as the plan refuses it. A
// team without a driver rule is offered every newer version.
func TestTheUpgradeFormOffersTheVersionsTheTeamMayDeploy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{Drivers: []string{"label:tier=stateless"}})
	for version, tier := range map[string]string{"1.1.0": "edge", "1.2.0": "stateless"} {
		fsys := bundledtest.AsVersion(t, "hello-web", version)
		fsys["driver.styrmin.yml"] = &fstest.MapFile{Data: []byte(strings.Replace(string(fsys["driver.styrmin.yml"].Data), "tier: stateless", "tier: "+tier, 1))}
		_, err := f.Catalog.ImportFS(ctx, fsys, ".", "test")
		require.NoError(t, err)
	}
	_, err := f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop"), "payments", ""))
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("blog"), teams.Default, ""))
	require.NoError(t, err)

	form, err := f.Svc.UpgradeForm(ctx, "shop", "")
	require.NoError(t, err)
	require.Equal(t, []string{"1.2.0", "1.0.0"}, form.DriverVersions)
	_, err = f.Svc.UpgradeForm(ctx, "shop", "1.1.0")
	require.Equal(t, map[string]string{"driver_version": "the team payments may not deploy version 1.1.0 of the driver hello-web: it may deploy label:tier=stateless; keep the current version, or ask an admin to allow the driver for the team"},
		deploymenttest.FieldsOf(t, err))
	form, err = f.Svc.UpgradeForm(ctx, "blog", "")
	require.NoError(t, err)
	require.Equal(t, []string{"1.2.0", "1.1.0", "1.0.0"}, form.DriverVersions)

	require.NoError(t, teams.NewStore(f.Pool).SetPolicy(ctx, "payments", teams.Policy{Drivers: []string{"redis"}}))
	form, err = f.Svc.UpgradeForm(ctx, "shop", "")
	require.NoError(t, err)
	require.Equal(t, []string{"1.0.0"}, form.DriverVersions, "the current version stays, even when the rule no longer allows it")
}

func TestATeamsDeploymentQuotaHoldsAgainstParallelInstalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	two := int64(2)
	f := setupTeam(t, teams.Policy{MaxDeployments: &two})

	queued, refused := queueAtOnce(t, f, 6, func(i int) deployment.Operation {
		return inTeam(deploymenttest.HelloWeb(fmt.Sprintf("shop-%d", i)), "payments", "")
	})
	require.Equal(t, 2, queued, "two installs at once cannot both take the last place")
	for _, fields := range refused {
		require.Equal(t, map[string]string{"team": "the team payments holds 2 live deployments, as many as its quota allows (2); delete one first, choose another team, or ask an admin to raise the quota"}, fields)
	}

	_, err := f.Pool.Exec(ctx, "UPDATE deployments SET deleted_at = now(), status = 'deleted' WHERE name = (SELECT min(name) FROM deployments)")
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("shop-9"), "payments", ""))
	require.NoError(t, err, "a deleted deployment frees its place")
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("blog"), teams.Default, ""))
	require.NoError(t, err, "another team's quota is its own")
}

// queueAtOnce queues n operations (op(i)) at the same time and returns how
// many were queued and the field errors of each refused one.
func queueAtOnce(t *testing.T, f deploymenttest.Fixture, n int, op func(i int) deployment.Operation) (queued int, refused []map[string]string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range errs {
		wg.Go(func() { _, errs[i] = f.Svc.Queue(context.Background(), op(i)) })
	}
	wg.Wait()
	for _, err := range errs {
		if err == nil {
			queued++
			continue
		}
		refused = append(refused, deploymenttest.FieldsOf(t, err))
	}
	return queued, refused
}
