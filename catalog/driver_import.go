package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"gopkg.in/yaml.v3"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
)

// ByBundled is the importer recorded for the drivers that ship inside the binary.
const ByBundled = "bundled"

// Imported says what an import did with one bundle.
type Imported struct {
	Name    string
	Version string
	// Created is false when the catalogue already held the identical version.
	Created bool
}

// Import stores one loaded bundle as a driver version. The same name and
// version with the same content is a no-op (Created false); with other content
// it is refused with an ECONFLICT error, because a driver version is immutable.
// A remote chart is downloaded here, once, and stored with the version (see
// release.ChartFetcher for what a download may reach). by records who or what
// imported it.
func (c *Catalog) Import(ctx context.Context, b *drivers.Bundle, by string) (Imported, error) {
	return c.importFrom(ctx, b, by, Origin{})
}

// Origin is where a version came from: a catalogue source, and the name of
// the key that signed it there (empty: unsigned).
type Origin struct {
	Source, SignedBy string
}

// importFrom imports b as Import does, recording where it came from. A
// version the catalogue holds already keeps its own origin.
func (c *Catalog) importFrom(ctx context.Context, b *drivers.Bundle, by string, origin Origin) (Imported, error) {
	name, version := b.Driver.Metadata.Name, b.Driver.Spec.Version
	created, err := c.importVersion(ctx, b, by, origin)
	if err != nil {
		return Imported{}, fmt.Errorf("catalog: import %s %s: %w", name, version, err)
	}
	return Imported{Name: name, Version: version, Created: created}, nil
}

// importVersion stores b's version unless it is stored already, and
// reports whether it stored it.
func (c *Catalog) importVersion(ctx context.Context, b *drivers.Bundle, by string, origin Origin) (bool, error) {
	key := db.GetDriverVersionDigestParams{Name: b.Driver.Metadata.Name, Version: b.Driver.Spec.Version}
	stored, err := c.q.GetDriverVersionDigest(ctx, key)
	switch {
	case err == nil:
		return false, c.importAgain(ctx, b, stored)
	case !errors.Is(err, pgx.ErrNoRows):
		return false, err
	}
	params, err := c.insertParams(ctx, b, by)
	if err != nil {
		return false, err
	}
	params.Source, params.SignedBy = origin.Source, origin.SignedBy
	err = audit.Change(ctx, c.conn, func(tx pgx.Tx) (string, error) {
		_, err := c.q.WithTx(tx).InsertDriverVersion(ctx, params)
		return params.Name, err
	})
	switch {
	case err == nil:
		c.changed()
		return true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return false, err
	}
	// Another import stored the version since it was looked up.
	if stored, err = c.q.GetDriverVersionDigest(ctx, key); err != nil {
		return false, err
	}
	return false, c.importAgain(ctx, b, stored)
}

// importAgain checks that b has the content of its stored version, and
// stores the remote chart of a version imported before charts were stored.
func (c *Catalog) importAgain(ctx context.Context, b *drivers.Bundle, stored db.GetDriverVersionDigestRow) error {
	name, version := b.Driver.Metadata.Name, b.Driver.Spec.Version
	if stored.Digest != b.Digest() {
		return &styrmin.Error{Code: styrmin.ECONFLICT, Err: errChangedVersion, Message: fmt.Sprintf(
			"Driver %s version %s is already in the catalogue with different content. "+
				"A driver version never changes once imported: raise spec.version in driver.styrmin.yml and import the bundle again",
			name, version)}
	}
	if stored.HasChart || !b.Driver.Spec.Helm.Main.Remote() {
		return nil
	}
	chart, err := c.fetchChart(ctx, b.Driver.Spec.Helm.Main)
	if err != nil {
		return err
	}
	return audit.Change(ctx, c.conn, func(tx pgx.Tx) (string, error) {
		return name, c.q.WithTx(tx).SetDriverVersionChart(ctx, db.SetDriverVersionChartParams{Name: name, Version: version, Chart: chart})
	})
}

// errChangedVersion is the cause of the refusal of a bundle whose version
// the catalogue holds with other content.
var errChangedVersion = errors.New("catalog: the version is stored with other content")

// fetchChart downloads the remote chart ref names, from the hosts an admin allows.
func (c *Catalog) fetchChart(ctx context.Context, ref drivers.ChartRef) ([]byte, error) {
	hosts, err := c.ChartHosts(ctx)
	if err != nil {
		return nil, err
	}
	return c.charts.Fetch(ctx, ref, hosts)
}

// insertParams turns a bundle into the row that stores it, downloading its
// remote chart and recording what the chart needs approved (see Permissions).
func (c *Catalog) insertParams(ctx context.Context, b *drivers.Bundle, by string) (db.InsertDriverVersionParams, error) {
	p, err := bundleParams(b, by)
	if err != nil {
		return p, err
	}
	withChart := b
	if b.Driver.Spec.Helm.Main.Remote() {
		if p.Chart, err = c.fetchChart(ctx, b.Driver.Spec.Helm.Main); err != nil {
			return p, err
		}
		loaded := *b
		if loaded.Chart, err = storedChart(b, p.Chart); err != nil {
			return p, err
		}
		withChart = &loaded
	}
	p.Permissions, p.PermissionsError = needs(ctx, withChart)
	return p, nil
}

// bundleParams turns a bundle's own files into the row that stores them.
func bundleParams(b *drivers.Bundle, by string) (db.InsertDriverVersionParams, error) {
	spec, err := SpecJSON(b.Driver)
	if err != nil {
		return db.InsertDriverVersionParams{}, err
	}
	labels := b.Driver.Metadata.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	labelsJSON, err := json.Marshal(labels)
	if err != nil {
		return db.InsertDriverVersionParams{}, fmt.Errorf("encode labels: %w", err)
	}
	archive, err := Pack(b.Files)
	if err != nil {
		return db.InsertDriverVersionParams{}, err
	}
	p := db.InsertDriverVersionParams{
		Name:      b.Driver.Metadata.Name,
		Version:   b.Driver.Spec.Version,
		Title:     b.Driver.Title(),
		Summary:   b.Driver.Summary(),
		Labels:    labelsJSON,
		Spec:      spec,
		Readme:    b.Readme,
		Digest:    b.Digest(),
		Bundle:    archive,
		CreatedBy: pgtype.Text{String: by, Valid: by != ""},
	}
	if b.Icon != nil {
		p.Icon = b.Icon.Data
		p.IconContentType = pgtype.Text{String: b.Icon.ContentType, Valid: true}
	}
	return p, nil
}

// SpecJSON encodes a driver as JSON with the field names of driver.styrmin.yml,
// as the catalogue stores it and the API shows it.
func SpecJSON(d *drivers.Driver) ([]byte, error) {
	data, err := yaml.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	return out, nil
}

// ImportFS loads the bundle in folder dir of fsys and imports it. A bundle
// that breaks the driver contract is refused with an EINVALID error wrapping
// drivers.Problems.
func (c *Catalog) ImportFS(ctx context.Context, fsys fs.FS, dir, by string) (Imported, error) {
	b, err := drivers.LoadBundle(ctx, fsys, dir)
	if err != nil {
		return Imported{}, invalidBundle(dir, err)
	}
	return c.Import(ctx, b, by)
}

// ArchiveImport says who imports a bundle archive, where it came from and
// what it must hold.
type ArchiveImport struct {
	// By records who or what imports it (a user's name, "source NAME").
	By string
	// Origin is the catalogue source it came from and its signer; zero for
	// an upload.
	Origin Origin
	// Tag, when not empty, is the registry tag it was published under: the
	// version it must hold.
	Tag string
	// Entry, when its name is not empty, is the index entry that lists it:
	// the driver and version it must hold.
	Entry Imported
}

// ImportArchive imports a bundle archive (an upload, a source's version): a
// gzip-compressed tar archive holding driver.styrmin.yml at its top or in one
// top-level folder, read within the bundle limits (see Unpack). An archive
// that is not a usable bundle, breaks the driver contract (wrapping
// drivers.Problems) or holds another version than imp.Tag (or another driver
// or version than imp.Entry) is refused with an EINVALID error; a changed version with ECONFLICT, as Import does. Once the
// bundle is loaded, the result names its driver and version even with an error.
func (c *Catalog) ImportArchive(ctx context.Context, r io.Reader, imp ArchiveImport) (Imported, error) {
	fsys, root, err := Unpack(r)
	if err != nil {
		return Imported{}, err
	}
	b, err := drivers.LoadBundle(ctx, fsys, root)
	if err != nil {
		return Imported{}, invalidBundle(root, err)
	}
	loaded := Imported{Name: b.Driver.Metadata.Name, Version: b.Driver.Spec.Version}
	if imp.Tag != "" && loaded.Version != imp.Tag {
		return loaded, styrmin.Errorf(styrmin.EINVALID, "the tag %s holds version %s of %s; a tag must be the version it holds",
			imp.Tag, loaded.Version, loaded.Name)
	}
	if imp.Entry.Name != "" && loaded != imp.Entry {
		return loaded, styrmin.Errorf(styrmin.EINVALID, "the index lists %s %s, but the archive holds %s %s; an entry must be the driver and version its archive holds",
			imp.Entry.Name, imp.Entry.Version, loaded.Name, loaded.Version)
	}
	res, err := c.importFrom(ctx, b, imp.By, imp.Origin)
	if err != nil {
		return loaded, err
	}
	return res, nil
}

// ImportPath imports the bundle folder or .tar.gz bundle archive at path.
func (c *Catalog) ImportPath(ctx context.Context, path, by string) (Imported, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Imported{}, styrmin.Errorf(styrmin.EINVALID, "Cannot read %s (%v); give a bundle folder or a .tar.gz archive of one.", path, err)
	}
	if info.IsDir() {
		b, err := loadFolder(ctx, path)
		if err != nil {
			return Imported{}, err
		}
		return c.Import(ctx, b, by)
	}
	f, err := os.Open(path)
	if err != nil {
		return Imported{}, fmt.Errorf("catalog: open %s: %w", path, err)
	}
	defer f.Close()
	return c.ImportArchive(ctx, f, ArchiveImport{By: by})
}

// ImportBundled imports every bundle folder named in names from fsys (the
// drivers that ship inside the binary).
func (c *Catalog) ImportBundled(ctx context.Context, fsys fs.FS, names []string) ([]Imported, error) {
	out := make([]Imported, 0, len(names))
	for _, name := range names {
		res, err := c.ImportFS(ctx, fsys, name, ByBundled)
		if err != nil {
			return out, fmt.Errorf("bundled driver %s: %w", name, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// Refusal is a folder of the drivers folder that was not imported, and why.
type Refusal struct {
	// Folder is the bundle folder's path.
	Folder string
	// Reason is what was wrong: the bundle's problems, or why the catalogue refused it.
	Reason string
}

// FolderChanges says what ImportDir does with a folder whose version the
// catalogue holds with other content.
type FolderChanges int

const (
	// RefuseChanges refuses the folder: a driver version never changes.
	RefuseChanges FolderChanges = iota
	// ImportDevBuilds imports it as a development build of its version
	// (1.2.0+dev.1, +dev.2...: see DevBuildOf), for a driver author's loop on
	// a development server; nothing already imported changes.
	ImportDevBuilds
)

// ImportDir imports every bundle folder directly inside dir (the folders that
// hold a driver.styrmin.yml; anything else is skipped). A folder whose bundle
// is invalid or conflicts with the catalogue (unless changes imports dev
// builds) is refused and the others are imported all the same: Refused lists
// the refusals of the last ImportDir, for the catalogue page. The error is an
// unreadable dir or a failure of the catalogue itself (its database), which
// stops the import.
func (c *Catalog) ImportDir(ctx context.Context, dir string, changes FolderChanges) ([]Imported, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog: read drivers folder: %w", err)
	}
	var out []Imported
	refused := []Refusal{}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(path, drivers.SpecFile)); !e.IsDir() || err != nil {
			continue
		}
		res, err := c.importFolder(ctx, path, changes)
		var ps drivers.Problems
		switch {
		case err == nil:
			out = append(out, res)
		case errors.As(err, &ps):
			refused = append(refused, Refusal{Folder: path, Reason: ps.Error()})
		case styrmin.ErrorCode(err) == styrmin.EINVALID || styrmin.ErrorCode(err) == styrmin.ECONFLICT:
			refused = append(refused, Refusal{Folder: path, Reason: styrmin.ErrorMessage(err)})
		default:
			return out, fmt.Errorf("driver folder %s: %w", path, err)
		}
	}
	c.mu.Lock()
	c.refused = refused
	c.mu.Unlock()
	return out, nil
}

// importFolder imports the bundle folder at path for ImportDir.
func (c *Catalog) importFolder(ctx context.Context, path string, changes FolderChanges) (Imported, error) {
	by := "folder " + path
	b, err := loadFolder(ctx, path)
	if err != nil {
		return Imported{}, err
	}
	res, err := c.Import(ctx, b, by)
	if changes == ImportDevBuilds && errors.Is(err, errChangedVersion) {
		return c.importDevBuild(ctx, b, by)
	}
	return res, err
}

// loadFolder loads the bundle folder at path; contract problems are EINVALID.
func loadFolder(ctx context.Context, path string) (*drivers.Bundle, error) {
	b, err := drivers.LoadPath(ctx, path)
	if err != nil {
		return nil, invalidBundle(path, err)
	}
	return b, nil
}

// Refused returns the folders the last ImportDir refused, and why; none before one.
func (c *Catalog) Refused() []Refusal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.refused)
}

// invalidBundle wraps a bundle loading failure; contract problems become EINVALID.
func invalidBundle(dir string, err error) error {
	var ps drivers.Problems
	if errors.As(err, &ps) {
		return &styrmin.Error{
			Code:    styrmin.EINVALID,
			Message: fmt.Sprintf("The driver bundle breaks the driver contract (%s); fix the file and import it again", problemCount(len(ps))),
			Err:     err,
		}
	}
	return fmt.Errorf("catalog: load bundle %s: %w", dir, err)
}

// problemCount says how many problems there are, in words.
func problemCount(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return fmt.Sprintf("%d problems", n)
}
