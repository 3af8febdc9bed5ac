package authoring

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/valuesfile"
)

// renderNamespace and renderName are the release an offline render is for.
const renderNamespace, renderName = "demo", "demo"

// RenderOptions are the values a render uses over the driver's sample values.
type RenderOptions struct {
	// Sets are NAME=VALUE pairs, VALUE read as the parameter's form field is.
	Sets []string
	// ValuesFile is a YAML file mapping parameter names to values.
	ValuesFile string
	// Version is the application version; the chart's appVersion when empty.
	Version string
	// Timeout bounds the chart's render below its budget's time
	// (chartrender.MaxTime), when not zero.
	Timeout time.Duration
}

// Rendered is what an install of the driver with those values would create.
type Rendered struct {
	// Parameters are the parameter values used (secrets as placeholders).
	Parameters map[string]any `json:"parameters"`
	// Values are the values template's output, the chart's values.
	Values map[string]any `json:"values"`
	// Manifest is every object the chart creates, hooks and CRDs included.
	Manifest string `json:"manifest"`
	// Permissions is what the manifest creates beyond its namespace, which an admin approves.
	Permissions permissions.Set `json:"permissions"`
}

// Render renders the driver folder p as an install renders it (the values
// template, then the chart, through release.Values and release.Render) for
// the release demo in namespace demo, without a cluster: the parameters are
// the driver's sample values (defaults, placeholders for required values
// without one, as the catalogue's permission check uses) under opts' values.
// An error of the values template is drivers.Problems at its line in driver.styrmin.yml.
func Render(ctx context.Context, p string, opts RenderOptions) (*Rendered, error) {
	b, err := drivers.LoadPath(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("authoring: render %s: %w", p, err)
	}
	if b.Chart == nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s uses a remote chart; render renders local charts only (no download here).", b.Path)
	}
	params, err := parameters(b.Driver, opts)
	if err != nil {
		return nil, err
	}
	version := opts.Version
	if version == "" {
		version = b.Chart.Metadata.AppVersion
	}
	values, err := release.Values(ctx, b.Driver, params, version, renderNamespace, renderName)
	if err != nil {
		return nil, fmt.Errorf("authoring: render %s: %w", p, b.ValuesProblem(ctx, err))
	}
	manifest, err := renderChart(ctx, b, values, opts.Timeout)
	if err != nil {
		return nil, err
	}
	set, err := permissions.Parse(manifest, renderNamespace)
	if err != nil {
		return nil, fmt.Errorf("authoring: render %s: %w", p, err)
	}
	return &Rendered{Parameters: params, Values: values, Manifest: manifest, Permissions: set}, nil
}

// renderChart renders b's chart within its budget (chartrender's) and
// within timeout, when not zero.
func renderChart(ctx context.Context, b *drivers.Bundle, values map[string]any, timeout time.Duration) (string, error) {
	if timeout <= 0 {
		return release.Render(ctx, b.Chart, values, renderNamespace, renderName)
	}
	renderCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	manifest, err := release.Render(renderCtx, b.Chart, values, renderNamespace, renderName)
	if err != nil && renderCtx.Err() != nil && ctx.Err() == nil {
		return "", styrmin.Errorf(styrmin.EINVALID, "The chart of %s did not render within %s; an install would not either. Look for a template that loops or builds a very large text.", b.Path, timeout)
	}
	return manifest, err
}

// parameters are d's sample values with those of opts over them, each
// checked as the install form checks it.
func parameters(d *drivers.Driver, opts RenderOptions) (map[string]any, error) {
	given, err := Given(d, opts.Sets, opts.ValuesFile)
	if err != nil {
		return nil, err
	}
	params := d.SampleValues()
	maps.Copy(params, given)
	return params, nil
}

// Given are the parameter values of valuesFile (a YAML mapping of names to
// values; none when "") with sets (NAME=VALUE, VALUE read as the parameter's
// form field is) over them, each checked as the install form checks it.
func Given(d *drivers.Driver, sets []string, valuesFile string) (map[string]any, error) {
	params := map[string]any{}
	given, err := valuesfile.Read(valuesFile)
	if err != nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		p, err := parameter(d, name)
		if err != nil {
			return nil, err
		}
		if params[name], err = p.Check(given[name]); err != nil {
			return nil, styrmin.Errorf(styrmin.EINVALID, "%s: %s: %v.", valuesFile, name, err)
		}
	}
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return nil, styrmin.Errorf(styrmin.EINVALID, "--set %q is not NAME=VALUE.", s)
		}
		p, err := parameter(d, name)
		if err != nil {
			return nil, err
		}
		if params[name], err = p.ParseInput(value); err != nil {
			return nil, styrmin.Errorf(styrmin.EINVALID, "--set %s: %v.", name, err)
		}
	}
	return params, nil
}

// parameter is d's parameter named name, or an EINVALID error that lists them.
func parameter(d *drivers.Driver, name string) (*drivers.Parameter, error) {
	names := make([]string, 0, len(d.Spec.Parameters))
	for i := range d.Spec.Parameters {
		if d.Spec.Parameters[i].Name == name {
			return &d.Spec.Parameters[i], nil
		}
		names = append(names, d.Spec.Parameters[i].Name)
	}
	return nil, styrmin.Errorf(styrmin.EINVALID, "The driver has no parameter %q; it has %s.", name, strings.Join(names, ", "))
}
