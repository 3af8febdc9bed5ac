package deployment_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/secrets"
)

// specCatalog records each distinct decoded spec Spec returned (the
// service's Catalog has no other way to read a version's spec).
type specCatalog struct {
	deployment.Catalog
	mu      sync.Mutex
	decoded map[*drivers.Driver]bool
}

func (c *specCatalog) Spec(ctx context.Context, name, version string) (catalog.Spec, error) {
	s, err := c.Catalog.Spec(ctx, name, version)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.decoded[s.Driver] = true
	return s, err
}

// TestPrimitivesDecodeTheDriverSpecOnce: action primitives read their
// deployment's driver spec through the catalogue's cache, so two calls
// decode it once.
func TestPrimitivesDecodeTheDriverSpecOnce(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, deploymenttest.Redis("cache"))
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "cache")
	step, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: install.TaskID, Kind: deployment.StepHook, Title: "an action"})
	require.NoError(t, err)
	caller := &deployment.Caller{DeploymentID: d.ID, TaskID: install.TaskID, StepID: step.ID}
	cat := &specCatalog{Catalog: f.Catalog, decoded: map[*drivers.Driver]bool{}}
	key, err := secrets.ParseKey(f.KeyText)
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	svc := deployment.New(deployment.Config{Pool: f.Pool, Catalog: cat, Box: box})

	for range 2 {
		got, err := svc.ReadDeployment(ctx, caller)
		require.NoError(t, err)
		require.Len(t, got.Components, 2, "the components come from the driver's spec")
	}
	require.Len(t, cat.decoded, 1, "the spec was decoded once for both calls")
}
