// Package source keeps the catalogue sources: OCI repositories of driver
// bundles, or https indexes of bundle archives (see Index), with a signature policy (unsigned allowed, or signed by one of the
// source's cosign public keys), synced by every worker process's Runner
// (one process per source at a time) and on an admin's request. Each tag is
// read once, within the remote-chart download budget and network rules, and
// recorded as imported into the catalogue (marked with its source and
// signer) or refused with the reason.
package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/oci"
	"github.com/styrmin/styrmin/release"
)

// Sync timing.
const (
	// SyncEvery is how often a source is synced.
	SyncEvery = 10 * time.Minute
	// ClaimFor is how long a process holds a source it syncs; a sync stops
	// by then, and another process may take the source after it.
	ClaimFor = 5 * time.Minute
	// MaxNewPerSync is the most new tags one sync reads; the rest wait.
	MaxNewPerSync = 20
)

// The kinds of source.
const (
	// KindOCI is an OCI repository: every tag is a version (oci://HOST/REPOSITORY).
	KindOCI = "oci"
	// KindIndex is an https index.yaml listing bundle archives (https://HOST/PATH/index.yaml).
	KindIndex = "index"
)

// The statuses of a source's version.
const (
	Imported = "imported"
	Refused  = "refused"
)

// Downloader runs a download under the remote-chart budget and network
// rules (release.ChartFetcher).
type Downloader interface {
	Download(ctx context.Context, allowed release.ChartHosts, d release.Download, get func(*http.Client) error) error
}

var _ Downloader = release.ChartFetcher{}

// Service adds, lists, deletes and syncs catalogue sources.
type Service struct {
	conn     audit.Conn
	q        *db.Queries
	catalog  *catalog.Catalog
	download Downloader
	// MaxArchive bounds a bundle archive read from a source.
	MaxArchive int64
}

// New returns the service over the database conn, importing into cat.
func New(conn audit.Conn, cat *catalog.Catalog, download Downloader) *Service {
	return &Service{conn: conn, q: db.New(conn), catalog: cat, download: download, MaxArchive: release.DefaultChartMaxBytes}
}

// Key is a public key a source trusts, with the name pages show for it.
type Key struct {
	Name string `json:"name"`
	// PEM is the public key (cosign.pub).
	PEM string `json:"pem"`
}

// NewSource is what an admin gives to add a source.
type NewSource struct {
	// Name names the source: a DNS label.
	Name string
	// Kind is KindOCI or KindIndex; empty: the URL's scheme says
	// (oci:// an OCI repository, https:// an index).
	Kind string
	// URL is oci://HOST/REPOSITORY, or https://HOST/PATH/index.yaml.
	URL string
	// SignedOnly refuses versions not signed by one of Keys.
	SignedOnly bool
	Keys       []Key
}

// Source is a stored source.
type Source struct {
	Name string
	// Kind is KindOCI or KindIndex.
	Kind       string
	URL        string
	SignedOnly bool
	Keys       []Key
	CreatedAt  time.Time
	CreatedBy  string
	NextSyncAt time.Time
	// SyncedAt is the end of the last sync; zero before the first.
	SyncedAt time.Time
	// SyncError says why the last sync did not finish; empty when it did.
	SyncError string
}

// Version is a tag a source read: an OCI repository's tag, or an index's
// entry as NAME@VERSION.
type Version struct {
	Tag, Digest string
	// Status is Imported or Refused; Reason says why it was refused.
	Status, Reason string
	// SignedBy names the key that signed it; empty: unsigned.
	SignedBy  string
	CheckedAt time.Time
}

// namePattern is a source's name: a DNS label of at most 40 characters.
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$`)

// check validates ns and returns its kind, detected from the URL when
// ns.Kind is empty; an EINVALID error names each wrong field.
func (ns NewSource) check() (string, error) {
	fields := map[string]string{}
	if !namePattern.MatchString(ns.Name) {
		fields["name"] = "a name is lower-case letters, digits and dashes, at most 40, such as acme-drivers"
	}
	kind, problem := kindOf(ns.Kind, ns.URL)
	switch {
	case problem != "":
		fields["kind"] = problem
	case kind == KindIndex:
		if _, err := parseIndexURL(ns.URL); err != nil {
			fields["url"] = styrmin.ErrorMessage(err)
		}
	default:
		if _, err := parseRepository(ns.URL); err != nil {
			fields["url"] = styrmin.ErrorMessage(err)
		}
	}
	keys, keyErr := verifiers(ns.Keys)
	if keyErr != "" {
		fields["keys"] = keyErr
	} else if ns.SignedOnly && len(keys) == 0 {
		fields["keys"] = "a source that requires signatures needs at least one public key"
	}
	if len(fields) > 0 {
		return "", &styrmin.Error{Code: styrmin.EINVALID, Message: "The source is not valid.", Fields: fields}
	}
	return kind, nil
}

// kindOf is the kind given, or the one url's scheme says when none is;
// or what is wrong with the kind.
func kindOf(kind, url string) (string, string) {
	switch {
	case kind == KindOCI || kind == KindIndex:
		return kind, ""
	case kind != "":
		return "", fmt.Sprintf("%q is not a kind of source: oci (an OCI repository) or index (an https index.yaml)", kind)
	case strings.HasPrefix(url, "https://"):
		return KindIndex, ""
	}
	return KindOCI, ""
}

// parseRepository reads an OCI source's address: a repository, no tag.
func parseRepository(url string) (oci.Ref, error) {
	ref, err := oci.ParseRef(url)
	switch {
	case err != nil:
		return oci.Ref{}, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: styrmin.ErrorMessage(err) +
			" An OCI source is oci://HOST/REPOSITORY; an index source is https://HOST/PATH/index.yaml."}
	case ref.Reference.Reference != "":
		return oci.Ref{}, styrmin.Errorf(styrmin.EINVALID, "name the repository without a tag or digest: every tag is read as a version")
	}
	return ref, nil
}

// verifiers loads keys, or says what is wrong with them.
func verifiers(keys []Key) ([]oci.Key, string) {
	out := make([]oci.Key, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if k.Name == "" || seen[k.Name] {
			return nil, "each key needs a name of its own (whose key it is)"
		}
		seen[k.Name] = true
		v, err := oci.LoadVerifier([]byte(k.PEM))
		if err != nil {
			return nil, fmt.Sprintf("key %s: %s", k.Name, styrmin.ErrorMessage(err))
		}
		out = append(out, oci.Key{Name: k.Name, Verifier: v})
	}
	return out, ""
}

// Add stores a new source, due for its first sync at once. Errors: EINVALID
// (with fields), ECONFLICT when the name is taken.
func (s *Service) Add(ctx context.Context, ns NewSource, by string) (Source, error) {
	kind, err := ns.check()
	if err != nil {
		return Source{}, err
	}
	keys, err := json.Marshal(append([]Key{}, ns.Keys...))
	if err != nil {
		return Source{}, fmt.Errorf("source: add %s: %w", ns.Name, err)
	}
	err = audit.Change(ctx, s.conn, func(tx pgx.Tx) (string, error) {
		_, err := s.q.WithTx(tx).InsertCatalogueSource(ctx, db.InsertCatalogueSourceParams{
			Name: ns.Name, Kind: kind, Url: ns.URL, SignedOnly: ns.SignedOnly, Keys: keys, CreatedBy: by})
		if errors.Is(err, pgx.ErrNoRows) {
			return "", styrmin.Errorf(styrmin.ECONFLICT, "A source named %s exists already.", ns.Name)
		}
		return ns.Name, err
	})
	if err != nil {
		return Source{}, fmt.Errorf("source: add %s: %w", ns.Name, err)
	}
	return s.Get(ctx, ns.Name)
}

// List returns every source, by name.
func (s *Service) List(ctx context.Context) ([]Source, error) {
	rows, err := s.q.ListCatalogueSources(ctx)
	if err != nil {
		return nil, fmt.Errorf("source: list: %w", db.Classify(err))
	}
	out := make([]Source, 0, len(rows))
	for _, r := range rows {
		src, err := sourceOf(db.GetCatalogueSourceRow(r))
		if err != nil {
			return nil, fmt.Errorf("source: list: %w", err)
		}
		out = append(out, src)
	}
	return out, nil
}

// Get returns the source name; ENOTFOUND when there is none.
func (s *Service) Get(ctx context.Context, name string) (Source, error) {
	row, err := s.q.GetCatalogueSource(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return Source{}, styrmin.Errorf(styrmin.ENOTFOUND, "There is no source named %s.", name)
	}
	if err != nil {
		return Source{}, fmt.Errorf("source: get %s: %w", name, db.Classify(err))
	}
	return sourceOf(row)
}

// Versions returns the newest tags the source name read, newest first.
func (s *Service) Versions(ctx context.Context, name string) ([]Version, error) {
	row, err := s.q.GetCatalogueSource(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "There is no source named %s.", name)
	}
	if err != nil {
		return nil, fmt.Errorf("source: versions of %s: %w", name, db.Classify(err))
	}
	rows, err := s.q.ListCatalogueSourceVersions(ctx, row.ID)
	if err != nil {
		return nil, fmt.Errorf("source: versions of %s: %w", name, db.Classify(err))
	}
	out := make([]Version, 0, len(rows))
	for _, r := range rows {
		out = append(out, Version{Tag: r.Tag, Digest: r.Digest, Status: r.Status, Reason: r.Reason, SignedBy: r.SignedBy, CheckedAt: r.CheckedAt})
	}
	return out, nil
}

// Delete removes the source and its record of versions; the versions it
// imported stay in the catalogue, still naming it. ENOTFOUND when there is none.
func (s *Service) Delete(ctx context.Context, name string) error {
	return s.audited(ctx, "delete", name, (*db.Queries).DeleteCatalogueSource)
}

// RequestSync makes the source due now: a worker's next look syncs it.
// ENOTFOUND when there is none.
func (s *Service) RequestSync(ctx context.Context, name string) error {
	return s.audited(ctx, "sync", name, (*db.Queries).RequestCatalogueSourceSync)
}

// audited runs change on the source name in an audited transaction.
func (s *Service) audited(ctx context.Context, what, name string, change func(*db.Queries, context.Context, string) (int64, error)) error {
	err := audit.Change(ctx, s.conn, func(tx pgx.Tx) (string, error) {
		n, err := change(s.q.WithTx(tx), ctx, name)
		if err == nil && n == 0 {
			err = styrmin.Errorf(styrmin.ENOTFOUND, "There is no source named %s.", name)
		}
		return name, err
	})
	if err != nil {
		return fmt.Errorf("source: %s %s: %w", what, name, err)
	}
	return nil
}

// sourceOf turns a row into a Source.
func sourceOf(r db.GetCatalogueSourceRow) (Source, error) {
	var keys []Key
	if err := json.Unmarshal(r.Keys, &keys); err != nil {
		return Source{}, fmt.Errorf("decode keys of %s: %w", r.Name, err)
	}
	return Source{Name: r.Name, Kind: r.Kind, URL: r.Url, SignedOnly: r.SignedOnly, Keys: keys, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
		NextSyncAt: r.NextSyncAt, SyncedAt: deref(r.SyncedAt), SyncError: r.SyncError}, nil
}

// deref is *t, or the zero time.
func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
