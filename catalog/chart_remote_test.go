package catalog_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

// remoteDriver is a driver whose chart is hello-web in the https repository
// at %[1]s, with the spec.helm.main.digest line %[2]s.
const remoteDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: remote
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  helm:
    main:
      location: %[1]s/stable
      chart: hello-web
      version: 1.0.0
      %[2]s
`

// remoteBundle is the bundle folder "remote" of remoteDriver.
func remoteBundle(repository, digestLine string) fstest.MapFS {
	return fstest.MapFS{"remote/driver.styrmin.yml": {Data: fmt.Appendf(nil, remoteDriver, repository, digestLine)}}
}

// remoteSetup is a catalogue that downloads charts from srv, which it trusts
// and an admin allowed.
func remoteSetup(t *testing.T, srv *httptest.Server) *catalog.Catalog {
	t.Helper()
	fetcher, hosts := releasetest.Trusting(srv)
	c := catalog.New(dbtest.New(t), fetcher)
	_, err := c.SetChartHosts(context.Background(), hosts)
	require.NoError(t, err)
	return c
}

func TestRemoteChartIsDownloadedAtImportAndNeverAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hello, archive := releasetest.HelloWeb(t)
	srv := releasetest.ChartRepository(t, hello, archive, releasetest.HelloWebPath, nil, false)
	c := remoteSetup(t, srv)
	bundle := remoteBundle(srv.URL, "digest: "+digest.FromBytes(archive).String())
	res, err := c.ImportFS(ctx, bundle, "remote", "alice")
	require.NoError(t, err)
	require.True(t, res.Created)
	srv.Close()

	again, err := c.ImportFS(ctx, bundle, "remote", "alice")
	require.NoError(t, err, "importing the same bundle again downloads nothing")
	require.False(t, again.Created)
	b, err := c.Bundle(ctx, "remote", "1.0.0")
	require.NoError(t, err, "the chart stored at import is the bundle's")
	require.Equal(t, hello.Metadata, b.Chart.Metadata)

	values, err := release.Values(ctx, b.Driver, map[string]any{}, "1.0.0", "web", "web")
	require.NoError(t, err)
	rel, err := releasetest.New(t).Client.Install(ctx, release.InstallOptions{Namespace: "web", Name: "web", Owner: release.Owner{Installation: "test", Deployment: 1}, Chart: b.Chart, Values: values, DryRun: true})
	require.NoError(t, err, "the stored chart renders with the repository gone")
	require.Contains(t, rel.Manifest, "kind: Deployment")
}

func TestImportRefusesARemoteChartOfAnotherDigest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hello, archive := releasetest.HelloWeb(t)
	srv := releasetest.ChartRepository(t, hello, archive, releasetest.HelloWebPath, nil, false)
	c := remoteSetup(t, srv)
	wrong := digest.FromString("another chart").String()
	_, err := c.ImportFS(ctx, remoteBundle(srv.URL, "digest: "+wrong), "remote", "alice")
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), "not "+wrong+" as spec.helm.main.digest says")
	_, err = c.Get(ctx, "remote", "1.0.0")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "nothing is stored")
}

func TestImportRefusesARemoteChartAtAHostNoAdminAllowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hello, archive := releasetest.HelloWeb(t)
	srv := releasetest.ChartRepository(t, hello, archive, releasetest.HelloWebPath, nil, false)
	fetcher, _ := releasetest.Trusting(srv)
	c := catalog.New(dbtest.New(t), fetcher)
	_, err := c.ImportFS(ctx, remoteBundle(srv.URL, ""), "remote", "alice")
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), "resolves to a loopback address, which chart downloads do not reach. If the host is trusted, an admin can allow it")
	require.NotContains(t, styrmin.ErrorMessage(err), "dial", "the user reads what failed, not the network error")
}

func TestChartHostsAreCheckedNormalizedAndStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	hosts, err := c.ChartHosts(ctx)
	require.NoError(t, err)
	require.Empty(t, hosts, "no host is allowed until an admin allows one")

	_, err = c.SetChartHosts(ctx, []string{"Charts.Internal", "registry.local:5000", ""})
	require.NoError(t, err)
	_, err = c.SetChartHosts(ctx, []string{"charts.internal", "not a host"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	hosts, err = c.ChartHosts(ctx)
	require.NoError(t, err)
	require.Equal(t, release.ChartHosts{"charts.internal", "registry.local:5000"}, hosts, "a refused change changes nothing")
}
