package deployment

import (
	"context"

	"github.com/styrmin/styrmin/drivers"
)

// Form is what an install or upgrade form starts with.
type Form struct {
	// Driver is the chosen driver version's spec (parameters, constraint).
	Driver *drivers.Driver
	// DriverVersions are the versions that may be chosen, newest first.
	DriverVersions []string
	// AppVersion is the application version the form proposes.
	AppVersion string
	// AppVersions are versions to suggest (the chart's, the current one).
	AppVersions []string
	// Values is the text each parameter's field starts with (no secrets).
	Values map[string]string
	// HookActions are the actions of the task's hooks that ask prompts, a
	// section each, in declaration order.
	HookActions []*drivers.Action
	// Prompts is the text each of their prompt fields starts with, by action
	// then prompt (no secrets).
	Prompts map[string]map[string]string
}

// InstallForm returns the install form of a driver version; an empty version
// means the newest.
func (s *Service) InstallForm(ctx context.Context, driver, version string) (*Form, error) {
	versions, err := s.catalog.Versions(ctx, driver)
	if err != nil {
		return nil, err
	}
	if version == "" {
		version = versions[0]
	}
	b, err := s.catalog.Bundle(ctx, driver, version)
	if err != nil {
		return nil, err
	}
	f := &Form{Driver: b.Driver, DriverVersions: versions, Values: FormText(b.Driver.Spec.Parameters, nil)}
	f.HookActions = hookActions(b.Driver, installHooks...)
	f.Prompts = promptText(f.HookActions)
	if v := chartAppVersion(b); v != "" {
		f.AppVersion, f.AppVersions = v, []string{v}
	}
	return f, nil
}

// installHooks are the hooks an install task runs.
var installHooks = []drivers.Hook{drivers.HookPreInstall, drivers.HookPostInstall}

// defaultAppVersion is the application version an install without one
// takes: its bundled chart's appVersion ("" for a remote chart, which the
// driver's supported versions then judge).
func (s *Service) defaultAppVersion(ctx context.Context, driver, version string) (string, error) {
	b, err := s.catalog.Bundle(ctx, driver, version)
	if err != nil {
		return "", err
	}
	return chartAppVersion(b), nil
}

// chartAppVersion is the appVersion of a bundled chart, "" for a remote one.
func chartAppVersion(b *drivers.Bundle) string {
	if b.Chart == nil || b.Chart.Metadata == nil {
		return ""
	}
	return b.Chart.Metadata.AppVersion
}

// Queued names a task that was queued.
type Queued struct {
	TaskID     int64
	Deployment string
}
