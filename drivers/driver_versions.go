package drivers

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// SupportsVersion checks an application version against the driver's
// supported_versions constraint. A leading "v" is allowed ("v16.2.0"), as in
// many charts' appVersion.
func (d *Driver) SupportsVersion(appVersion string) error {
	v, err := semver.NewVersion(strings.TrimSpace(appVersion))
	if err != nil {
		return fmt.Errorf("%q is not a version (write for example 16.2.0)", appVersion)
	}
	c, err := semver.NewConstraint(d.Spec.SupportedVersions)
	if err != nil {
		return fmt.Errorf("driver %s %s has an invalid supported_versions: %w", d.Metadata.Name, d.Spec.Version, err)
	}
	if !c.Check(v) {
		return fmt.Errorf("version %s is not supported by driver %s %s, which supports %s", appVersion, d.Metadata.Name, d.Spec.Version, d.Spec.SupportedVersions)
	}
	return nil
}
