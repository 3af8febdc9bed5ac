package deployment_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/requests"
	"github.com/styrmin/styrmin/teams"
)

// The bundled hello-web driver's pods each request 10m of CPU and
// memory_mib MiB of memory, times its replicas.
const mi = 1 << 20

// sized is a hello-web install into the team payments with replicas pods of
// memory MiB each.
func sized(name string, replicas, memory int) *deployment.Install {
	req := inTeam(deploymenttest.HelloWeb(name), "payments", "")
	req.Parameters = deployment.FormInput{"site_title": "Shop", "replicas": fmt.Sprint(replicas), "memory_mib": fmt.Sprint(memory)}
	return req
}

// quota is a team policy with a CPU (millicores) and a memory (MiB) quota.
func quota(cpu, memory int64) teams.Policy {
	memory *= mi
	return teams.Policy{MaxCPUMillis: &cpu, MaxMemoryBytes: &memory}
}

// requested is what the named deployment's row records it requests.
func requested(t *testing.T, f deploymenttest.Fixture, name string) (cpu, memory *int64) {
	t.Helper()
	err := f.Pool.QueryRow(context.Background(), "SELECT requested_cpu_millis, requested_memory_bytes FROM deployments WHERE name = $1 AND deleted_at IS NULL", name).Scan(&cpu, &memory)
	require.NoError(t, err)
	return cpu, memory
}

func TestATeamsCPUAndMemoryQuotasHoldAtTheInstall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, quota(60, 512))

	_, err := f.Svc.Queue(ctx, sized("shop", 2, 128))
	require.NoError(t, err, "20m and 256Mi of 60m and 512Mi")
	cpu, memory := requested(t, f, "shop")
	require.Equal(t, int64(20), *cpu, "recorded as planned")
	require.Equal(t, int64(256*mi), *memory)

	_, err = f.Svc.Queue(ctx, sized("blog", 3, 128))
	require.Equal(t, map[string]string{"parameters": "the team payments may request 512Mi of memory in all; its other live deployments request 256Mi and this one 384Mi; lower this deployment's replicas or resources, or ask an admin to raise the team's quota"},
		deploymenttest.FieldsOf(t, err))
	_, err = f.Svc.Queue(ctx, sized("blog", 5, 32))
	require.Equal(t, map[string]string{"parameters": "the team payments may request 0.06 CPU in all; its other live deployments request 0.02 and this one 0.05; lower this deployment's replicas or resources, or ask an admin to raise the team's quota"},
		deploymenttest.FieldsOf(t, err))
	_, err = f.Svc.Queue(ctx, sized("blog", 4, 64))
	require.NoError(t, err, "40m and 256Mi: the quotas exactly")

	_, err = f.Pool.Exec(ctx, "UPDATE deployments SET deleted_at = now(), status = 'deleted' WHERE name = 'shop'")
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, sized("shop-2", 2, 128))
	require.NoError(t, err, "a deleted deployment frees what it requested")
	_, err = f.Svc.Queue(ctx, inTeam(deploymenttest.HelloWeb("other"), teams.Default, ""))
	require.NoError(t, err, "another team's quota is its own")
}

func TestAnInstallBeyondBothQuotasIsToldOfEach(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, quota(10, 32))
	_, err := f.Svc.Queue(ctx, sized("shop", 2, 64))
	require.Equal(t, map[string]string{"parameters": "the team payments may request 0.01 CPU in all; its other live deployments request 0 and this one 0.02; " +
		"the team payments may request 32Mi of memory in all; its other live deployments request 0 and this one 128Mi; lower this deployment's replicas or resources, or ask an admin to raise the team's quota"},
		deploymenttest.FieldsOf(t, err))
	requireNothingRecorded(t, f)
}

func TestATeamsCPUAndMemoryQuotasHoldAgainstParallelInstalls(t *testing.T) {
	t.Parallel()
	f := setupTeam(t, quota(1000, 256))

	queued, refused := queueAtOnce(t, f, 5, func(i int) deployment.Operation { return sized(fmt.Sprintf("shop-%d", i), 2, 64) })
	for _, fields := range refused {
		require.Contains(t, fields["parameters"], "the team payments may request 256Mi of memory in all")
	}
	require.Equal(t, 2, queued, "two installs at once cannot both take the last 128Mi")
}

func TestADeploymentPlannedBeforeStyrminCountedRequestsCountsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, teams.Policy{})
	_, err := f.Svc.Queue(ctx, sized("shop", 2, 256))
	require.NoError(t, err)
	_, err = f.Pool.Exec(ctx, "UPDATE deployments SET requested_cpu_millis = NULL, requested_memory_bytes = NULL WHERE name = 'shop'")
	require.NoError(t, err)
	require.NoError(t, teams.NewStore(f.Pool).SetPolicy(ctx, "payments", quota(1000, 256)))

	_, err = f.Svc.Queue(ctx, sized("blog", 2, 128))
	require.NoError(t, err, "shop's 512Mi were never recorded: they count 0")
}

func TestAnUpgradeRaisingReplicasPastTheTeamsQuotaIsRefusedAtReview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, quota(1000, 512))
	_, err := f.Svc.Queue(ctx, sized("shop", 2, 64))
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, sized("blog", 2, 64))
	require.NoError(t, err)

	upgrade := func(replicas int) *deployment.Upgrade {
		return &deployment.Upgrade{Name: "shop", Parameters: deployment.FormInput{"site_title": "Shop", "replicas": fmt.Sprint(replicas), "memory_mib": "64"}, By: "alice"}
	}
	_, err = f.Svc.Review(ctx, upgrade(8))
	require.Equal(t, map[string]string{"parameters": "the team payments may request 512Mi of memory in all; its other live deployments request 128Mi and this one 512Mi; lower this deployment's replicas or resources, or ask an admin to raise the team's quota"},
		deploymenttest.FieldsOf(t, err))
	_, err = f.Svc.Queue(ctx, upgrade(8))
	require.Contains(t, deploymenttest.FieldsOf(t, err), "parameters", "an upgrade queued without a review is checked too")

	review, err := f.Svc.Review(ctx, upgrade(6))
	require.NoError(t, err, "384Mi beside 128Mi: the quota exactly")
	require.Equal(t, &deployment.Requests{Team: "payments",
		Before: &requests.Totals{CPUMillis: 20, MemoryBytes: 128 * mi}, After: requests.Totals{CPUMillis: 60, MemoryBytes: 384 * mi},
		Others: requests.Totals{CPUMillis: 20, MemoryBytes: 128 * mi}, MaxCPUMillis: new(int64(1000)), MaxMemoryBytes: new(int64(512 * mi)),
	}, review.Requests, "the review shows what the deployment requests before and after, beside its team")

	_, err = f.Svc.Queue(ctx, sized("cache", 1, 64))
	require.NoError(t, err, "another install takes 64Mi meanwhile")
	_, err = f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.Equal(t, map[string]string{"parameters": "the team payments may request 512Mi of memory in all; its other live deployments request 192Mi and this one 384Mi; lower this deployment's replicas or resources, or ask an admin to raise the team's quota"},
		deploymenttest.FieldsOf(t, err), "confirming checks the quota again")
	cpu, memory := requested(t, f, "shop")
	require.Equal(t, []int64{20, 128 * mi}, []int64{*cpu, *memory}, "nothing recorded of a refused upgrade")

	review, err = f.Svc.Review(ctx, upgrade(4))
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	cpu, memory = requested(t, f, "shop")
	require.Equal(t, []int64{40, 256 * mi}, []int64{*cpu, *memory}, "the confirmed upgrade's figures are recorded")
}

func TestAnUpgradeThatDoesNotGrowIsAllowedAboveAQuotaLoweredSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupTeam(t, quota(1000, 1024))
	_, err := f.Svc.Queue(ctx, sized("shop", 4, 128))
	require.NoError(t, err)
	require.NoError(t, teams.NewStore(f.Pool).SetPolicy(ctx, "payments", quota(1000, 128)))

	_, err = f.Svc.Queue(ctx, &deployment.Upgrade{Name: "shop", Parameters: deployment.FormInput{"site_title": "Shop", "replicas": "2", "memory_mib": "128"}, By: "alice"})
	require.NoError(t, err, "shrinking from 512Mi to 256Mi is allowed, though still above 128Mi")
}
