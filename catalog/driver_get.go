package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
)

// Version is one stored driver version, without its icon and bundle archive.
type Version struct {
	Driver    *drivers.Driver
	HasIcon   bool
	Readme    string
	Digest    string
	CreatedAt time.Time
	// CreatedBy says who or what imported the version ("bundled", a user name, ...).
	CreatedBy string
	// Origin is the catalogue source it came from and who signed it; empty
	// when it was imported otherwise.
	Origin Origin
}

// Icon is a driver version's icon with its checked content type.
type Icon struct {
	ContentType string
	Data        []byte
}

// VersionRef names one version of a driver and the digest of its content,
// which identifies it for good: a driver version never changes.
type VersionRef struct {
	Version string
	Digest  string
}

// Versions returns the versions of the named driver, newest first. A driver
// the catalogue does not hold is an ENOTFOUND error.
func (c *Catalog) Versions(ctx context.Context, name string) ([]string, error) {
	refs, err := c.VersionRefs(ctx, name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Version
	}
	return out, nil
}

// VersionRefs returns the versions of the named driver with their digests,
// newest first. A driver the catalogue does not hold is an ENOTFOUND error.
// While notifications are received (ListenOn), a driver's versions are kept
// until the catalogue changes.
func (c *Catalog) VersionRefs(ctx context.Context, name string) ([]VersionRef, error) {
	c.mu.Lock()
	refs, ok := c.refs[name]
	listening, epoch := c.listening, c.epoch
	c.mu.Unlock()
	if listening && ok {
		return slices.Clone(refs), nil
	}
	rows, err := c.q.ListDriverVersions(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("catalog: versions of %s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no driver named %q.", name)
	}
	out := make([]VersionRef, len(rows))
	for i, r := range rows {
		out[i] = VersionRef{Version: r.Version, Digest: r.Digest}
	}
	slices.SortFunc(out, func(a, b VersionRef) int { return compareVersions(b.Version, a.Version) })
	c.mu.Lock()
	if c.listening && c.epoch == epoch {
		c.refs[name] = out
	}
	c.mu.Unlock()
	return slices.Clone(out), nil
}

// Get returns one version of the named driver. A missing one is an ENOTFOUND error.
func (c *Catalog) Get(ctx context.Context, name, version string) (*Version, error) {
	row, err := c.q.GetDriverVersion(ctx, db.GetDriverVersionParams{Name: name, Version: version})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: get %s %s: %w", name, version, err)
	}
	d, err := drivers.Decode("spec.json", row.Spec)
	if err != nil {
		return nil, fmt.Errorf("catalog: decode stored spec of %s %s: %w", name, version, err)
	}
	return &Version{
		Driver:    d,
		HasIcon:   row.HasIcon,
		Readme:    row.Readme,
		Digest:    row.Digest,
		CreatedAt: row.CreatedAt,
		CreatedBy: row.CreatedBy.String,
		Origin:    Origin{Source: row.Source, SignedBy: row.SignedBy},
	}, nil
}

// Icon returns the icon of a driver version. A version without an icon is an ENOTFOUND error.
func (c *Catalog) Icon(ctx context.Context, name, version string) (Icon, error) {
	row, err := c.q.GetDriverIcon(ctx, db.GetDriverIconParams{Name: name, Version: version})
	if errors.Is(err, pgx.ErrNoRows) {
		return Icon{}, styrmin.Errorf(styrmin.ENOTFOUND, "Driver %q version %q has no icon.", name, version)
	}
	if err != nil {
		return Icon{}, fmt.Errorf("catalog: icon of %s %s: %w", name, version, err)
	}
	return Icon{ContentType: row.IconContentType.String, Data: row.Icon}, nil
}

// Bundle returns the whole stored bundle of a driver version (chart files,
// actions and the parsed Driver), as deployments need it, with its chart:
// the bundled one, or the remote one stored at import (never downloaded
// again). A remote chart that was not stored (a version imported before
// charts were) is an EUNAVAILABLE error that says to import it again. The bundle was
// checked when it was imported, so it is not checked again: no Python and no
// values template run. It is refused when its files no longer match the
// digest recorded at import (drivers.ErrDigestMismatch). A missing version is
// an ENOTFOUND error.
func (c *Catalog) Bundle(ctx context.Context, name, version string) (*drivers.Bundle, error) {
	row, err := c.q.GetDriverBundle(ctx, db.GetDriverBundleParams{Name: name, Version: version})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: bundle of %s %s: %w", name, version, err)
	}
	fsys, root, err := Unpack(bytes.NewReader(row.Bundle))
	if err != nil {
		return nil, fmt.Errorf("catalog: unpack stored bundle of %s %s: %w", name, version, err)
	}
	b, err := drivers.LoadTrusted(fsys, root, row.Digest)
	if err != nil {
		return nil, fmt.Errorf("catalog: bundle of %s %s: %w", name, version, err)
	}
	if b.Driver.Spec.Helm.Main.Remote() {
		if b.Chart, err = storedChart(b, row.Chart); err != nil {
			return nil, fmt.Errorf("catalog: bundle of %s %s: %w", name, version, err)
		}
	}
	return b, nil
}

// storedChart loads the remote chart archive stored with bundle b's version.
func storedChart(b *drivers.Bundle, archive []byte) (*chart.Chart, error) {
	ref := b.Driver.Spec.Helm.Main
	if archive == nil {
		return nil, styrmin.Errorf(styrmin.EUNAVAILABLE,
			"Driver %s version %s was imported before Styrmin stored remote charts, so its chart %s %s is not stored. "+
				"An admin can import the same bundle again: the chart is then downloaded once and stored.",
			b.Driver.Metadata.Name, b.Driver.Spec.Version, ref.Location, ref.Version)
	}
	c, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("load stored chart %s: %w", ref.Location, err)
	}
	return c, nil
}
