package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/kube"
	helmrelease "helm.sh/helm/v3/pkg/release"

	"github.com/styrmin/styrmin/chartrender"
)

// Check judges a release's whole rendered manifest (the chart's CRDs, its
// hooks and its resources, as chartrender.Everything joins them) before Helm applies
// any of it; an error refuses the operation.
type Check func(manifest string) error

// Render renders a chart with values for release name in namespace without
// a cluster (as `helm template` does) and returns everything it would
// create, as chartrender.Everything joins it. It is for what a chart needs
// before any deployment of it exists: the cluster's objects are not looked
// up. The render runs in a child process within chartrender's budget. A
// chart that does not render with values, or passes the budget, is an
// EINVALID error that says why.
func Render(ctx context.Context, ch *chart.Chart, values map[string]any, namespace, name string) (string, error) {
	manifest, err := chartrender.Render(ctx, chartrender.Request{Chart: ch, Values: values, Namespace: namespace, Name: name})
	if err != nil {
		return "", fmt.Errorf("release: render %s: %w", name, err)
	}
	return manifest, nil
}

// RenderUpgrade is Render as an upgrade of the release renders the chart
// (.Release.IsUpgrade true).
func RenderUpgrade(ctx context.Context, ch *chart.Chart, values map[string]any, namespace, name string) (string, error) {
	manifest, err := chartrender.Render(ctx, chartrender.Request{Chart: ch, Values: values, Namespace: namespace, Name: name, Upgrade: true})
	if err != nil {
		return "", fmt.Errorf("release: render the upgrade of %s: %w", name, err)
	}
	return manifest, nil
}

// renderWithinBudget renders req's chart offline in chartrender's child
// before Helm renders it in this process, and refuses it only when it passes
// the budget: a chart that fails offline (a `lookup` finds nothing there) is
// left to Helm's own render, which sees the cluster.
func renderWithinBudget(ctx context.Context, req chartrender.Request) error {
	_, err := chartrender.Render(ctx, req)
	if err != nil && (errors.Is(err, chartrender.ErrBudget) || ctx.Err() != nil) {
		return err
	}
	return nil
}

// checkFirst runs check, when there is one, on what dryRun would create,
// then makes cfg's Kubernetes client run it again on whatever Helm creates
// or updates (see checkedKube).
func checkFirst(cfg *action.Configuration, check Check, dryRun func() (*helmrelease.Release, error)) error {
	if check == nil {
		return nil
	}
	rel, err := dryRun()
	if err != nil {
		return err
	}
	checked := chartrender.Everything(rel)
	if err := check(checked); err != nil {
		return err
	}
	if client, ok := cfg.KubeClient.(*kube.Client); ok {
		cfg.KubeClient = &checkedKube{Client: client, check: check, checked: checked}
	}
	return nil
}

// checkRendered is a Helm post-renderer that runs check on the resources
// Helm rendered (hooks and CRDs aside), before Helm reads the cluster for
// them: a chart's object the deployer may not even read is refused with the
// check's own message rather than the API server's.
type checkRendered Check

// Run passes the manifest on unchanged, or refuses it.
func (c checkRendered) Run(manifest *bytes.Buffer) (*bytes.Buffer, error) {
	if err := c(manifest.String()); err != nil {
		return nil, err
	}
	return manifest, nil
}

// checkedKube is Helm's Kubernetes client that judges every object Helm is
// about to create or update with check, hooks included (a post-renderer
// never sees hooks), so that what is applied is what was checked whatever
// the chart renders the second time (`now`, `lookup`, `rand...`).
type checkedKube struct {
	*kube.Client
	check Check
	// checked is the manifest the dry run checked: the chart's own roles
	// and ServiceAccounts, which the applied objects may refer to.
	checked string
}

// Create creates resources once check accepts them.
func (k *checkedKube) Create(resources kube.ResourceList) (*kube.Result, error) {
	if err := k.judge(resources); err != nil {
		return nil, err
	}
	return k.Client.Create(resources)
}

// Update makes target of original once check accepts target.
func (k *checkedKube) Update(original, target kube.ResourceList, force bool) (*kube.Result, error) {
	if err := k.judge(target); err != nil {
		return nil, err
	}
	return k.Client.Update(original, target, force)
}

// judge runs check on resources beside the manifest the dry run checked.
func (k *checkedKube) judge(resources kube.ResourceList) error {
	var b strings.Builder
	b.WriteString(k.checked)
	for _, info := range resources {
		data, err := json.Marshal(info.Object)
		if err != nil {
			return fmt.Errorf("release: read %s to check it: %w", info.Name, err)
		}
		b.WriteString("\n---\n")
		b.Write(data)
	}
	return k.check(b.String())
}
