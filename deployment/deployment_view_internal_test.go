package deployment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
)

// TestAViewsComponentsAreDeclaredRememberedAndReported: a view lists the
// driver's components in its order, then those only Styrmin remembers (a
// driver version the catalogue lost), each stopped as Styrmin remembers, with
// the workloads of those the cluster reported; the page and the API show
// these same components.
func TestAViewsComponentsAreDeclaredRememberedAndReported(t *testing.T) {
	t.Parallel()
	d := &Deployment{Components: map[string]ComponentState{"db": {Stopped: true}, "gone": {Stopped: true}}}
	declared := []drivers.Component{{Name: "web", Title: "Web server"}, {Name: "db"}}

	require.Equal(t, []ComponentView{
		{Name: "web", Title: "Web server"}, {Name: "db", Title: "db", Stopped: true}, {Name: "gone", Title: "gone", Stopped: true},
	}, componentViews(d, declared, nil), "no cluster: what the driver declares and Styrmin remembers")

	require.Equal(t, []ComponentView{{Name: "db", Title: "db", Stopped: true}, {Name: "gone", Title: "gone", Stopped: true}},
		componentViews(d, nil, nil), "a driver version the catalogue lost: what Styrmin remembers, by name")

	web := []kube.Workload{{Kind: kube.KindDeployment, Name: "site-web", Replicas: 2, ReadyReplicas: 1}}
	live := []LiveComponent{{Name: "web", Title: "Web server", Workloads: web}, {Name: "db", Stopped: true}}
	require.Equal(t, []ComponentView{
		{Name: "web", Title: "Web server", Reported: true, Workloads: web},
		{Name: "db", Title: "db", Stopped: true, Reported: true},
		{Name: "gone", Title: "gone", Stopped: true},
	}, componentViews(d, declared, live), "the cluster's workloads join the components it reported")
}
