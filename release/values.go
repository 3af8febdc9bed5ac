package release

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin/drivers"
)

// Values renders the Helm values that driver d gives the deployment whose
// release is name in namespace (a deployment's name is its release name), for
// application version appVersion and params (each parameter's typed value, as
// drivers.Parameter.Check returns it), under the values template's budget
// (see drivers.Driver.RenderValues); it stops when ctx ends.
func Values(ctx context.Context, d *drivers.Driver, params map[string]any, appVersion, namespace, name string) (map[string]any, error) {
	values, err := d.RenderValues(ctx, drivers.ValuesData{
		Parameters: params,
		Version:    appVersion,
		Deployment: drivers.DeploymentRef{Name: name, Namespace: namespace, Release: name},
		Driver:     drivers.DriverRef{Name: d.Metadata.Name, Version: d.Spec.Version},
	})
	if err != nil {
		return nil, fmt.Errorf("release: values of %s: %w", name, err)
	}
	return values, nil
}
