package release

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	helmrelease "helm.sh/helm/v3/pkg/release"

	"github.com/styrmin/styrmin"
)

// Check judges a release's whole rendered manifest (the chart's CRDs, its
// hooks and its resources, as Everything joins them) before Helm applies
// any of it; an error refuses the operation.
type Check func(manifest string) error

// Render renders a chart with values for release name in namespace without
// a cluster (as `helm template` does) and returns everything it would
// create, as Everything joins it. It is for what a chart needs before any
// deployment of it exists: the cluster's objects are not looked up. A chart
// that does not render with values is an EINVALID error with Helm's message.
func Render(ctx context.Context, ch *chart.Chart, values map[string]any, namespace, name string) (string, error) {
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.ClientOnly, install.DryRun = true, true
	install.Namespace, install.ReleaseName = namespace, name
	rel, err := install.RunWithContext(ctx, ch, values)
	if err != nil && ctx.Err() == nil {
		// Without a cluster, only the chart and its values can fail.
		return "", &styrmin.Error{Code: styrmin.EINVALID, Message: "Helm could not render the chart: " + err.Error(),
			Err: fmt.Errorf("release: render %s: %w", name, err)}
	}
	if err != nil {
		return "", fmt.Errorf("release: render %s: %w", name, err)
	}
	return everything(rel), nil
}

// everything joins what a revision creates: the CRDs of its chart's crds/
// folders (Helm creates them before the rest at install), its hooks and its
// manifest.
func everything(rel *helmrelease.Release) string {
	var b strings.Builder
	if rel.Chart != nil {
		for _, crd := range rel.Chart.CRDObjects() {
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", crd.Filename, crd.File.Data)
		}
	}
	for _, h := range rel.Hooks {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	b.WriteString(rel.Manifest)
	return b.String()
}

// checkFirst runs check, when there is one, on what dryRun would create.
func checkFirst(check Check, dryRun func() (*helmrelease.Release, error)) error {
	if check == nil {
		return nil
	}
	rel, err := dryRun()
	if err != nil {
		return err
	}
	return check(everything(rel))
}

// checkRendered is a Helm post-renderer that runs check again on the
// resources Helm is about to apply, so what was checked on the dry run is
// what is applied.
type checkRendered Check

// Run passes the manifest on unchanged, or refuses it.
func (c checkRendered) Run(manifest *bytes.Buffer) (*bytes.Buffer, error) {
	if err := c(manifest.String()); err != nil {
		return nil, err
	}
	return manifest, nil
}
