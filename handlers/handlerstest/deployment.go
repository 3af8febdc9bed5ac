package handlerstest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// PgSecret is a secret parameter value that must never come back in a page.
const PgSecret = "s3cret-password-never-shown"

// DeployApp is a server with the bundled drivers, an operator and a
// read-only user; its tasks are queued but nothing runs them.
type DeployApp struct {
	*App
	Service          *deployment.Service
	Pool             *pgxpool.Pool
	Operator, Reader Visitor
}

// SetupDeployments returns a DeployApp: the server with the bundled drivers
// imported, an operator (olga) and a read-only user (rita), deploying
// nowhere.
func SetupDeployments(t *testing.T) DeployApp {
	t.Helper()
	return SetupDeploymentsOn(t, nil)
}

// SetupDeploymentsOn is SetupDeployments whose deployment pages read
// cluster (a fake one; nil for none).
func SetupDeploymentsOn(t *testing.T, cluster *deployment.Cluster) DeployApp {
	t.Helper()
	pool := dbtest.New(t)
	a := newApp(t, apptest.Options{DatabaseURL: pool.Config().ConnString(), Cluster: cluster})
	_, err := a.Deps.Drivers.(*catalog.Catalog).ImportBundled(context.Background(), bundled.Bundles(), bundled.Names())
	require.NoError(t, err)
	operator, _ := a.As(t, "olga", auth.Operator)
	reader, _ := a.As(t, "rita", auth.ReadOnly)
	return DeployApp{App: a, Service: a.Deps.Deployments.(*deployment.Service), Pool: pool, Operator: operator, Reader: reader}
}

// Install queues op, an install, through the service, as olga.
func (d DeployApp) Install(t *testing.T, op *deployment.Install) *deployment.Queued {
	t.Helper()
	op.By = "olga"
	q, err := d.Service.Queue(context.Background(), op)
	require.NoError(t, err)
	return q
}

// TwoTeams makes the teams a and b, each holding one deployment of Hello
// Web (alpha in a, beta in b), for the attacks of one team's member on the
// other's; it returns beta's install.
func (d DeployApp) TwoTeams(t *testing.T) *deployment.Queued {
	t.Helper()
	ctx := context.Background()
	for _, team := range []string{"a", "b"} {
		_, err := d.Deps.Teams.Create(ctx, team)
		require.NoError(t, err)
	}
	d.Install(t, HelloInstall("alpha"))
	beta := d.Install(t, HelloInstall("beta"))
	require.NoError(t, d.Deps.Teams.Move(ctx, "alpha", "a"))
	require.NoError(t, d.Deps.Teams.Move(ctx, "beta", "b"))
	return beta
}

// TasksOf returns a deployment's tasks, newest first.
func (d DeployApp) TasksOf(t *testing.T, name string) []deployment.Task {
	t.Helper()
	dep, err := d.Service.Get(context.Background(), name)
	require.NoError(t, err)
	tasks, _, err := d.Service.Tasks(context.Background(), dep.ID, 0, 100)
	require.NoError(t, err)
	return tasks
}

// PgInstall is a valid install of the bundled PostgreSQL driver, as its
// form would send it.
func PgInstall(name string) *deployment.Install {
	return &deployment.Install{Driver: "postgresql", DriverVersion: "1.2.0", Name: name, AppVersion: "16.4.0",
		Parameters: deployment.FormInput{"password": PgSecret}}
}

// HelloInstall is a valid install of the bundled Hello Web driver, as its
// form would send it.
func HelloInstall(name string) *deployment.Install {
	return &deployment.Install{Driver: "hello-web", DriverVersion: "1.0.0", Name: name, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"site_title": "Shop", "replicas": "2"}}
}
