package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/oci"
	"github.com/styrmin/styrmin/release"
)

// TickEvery is how often a worker process looks for a due source.
const TickEvery = 15 * time.Second

// Run syncs the due sources every TickEvery until ctx ends.
func (s *Service) Run(ctx context.Context, log *slog.Logger) {
	styrmin.Every(ctx, TickEvery, func(ctx context.Context) {
		for synced := true; synced; {
			var err error
			if synced, err = s.SyncDue(ctx); err != nil && ctx.Err() == nil {
				log.Warn("catalogue sources", "err", err)
			}
		}
	})
}

// SyncDue claims the most overdue source no process syncs, if any, syncs
// it and reports whether there was one. A sync that stops early (the
// registry fails, the claim's time ends) is recorded on the source and
// returned; versions refused are not errors.
func (s *Service) SyncDue(ctx context.Context) (bool, error) {
	row, err := s.q.ClaimDueCatalogueSource(ctx, db.ClaimDueCatalogueSourceParams{
		Every: interval(SyncEvery), ClaimFor: interval(ClaimFor)})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("source: claim: %w", db.Classify(err))
	}
	syncCtx, cancel := context.WithTimeout(ctx, ClaimFor)
	syncErr := s.sync(syncCtx, row)
	cancel()
	end := db.EndCatalogueSourceSyncParams{ID: row.ID}
	if syncErr != nil {
		end.SyncError = styrmin.ErrorMessage(syncErr)
	}
	if err := s.q.EndCatalogueSourceSync(context.WithoutCancel(ctx), end); err != nil {
		return true, fmt.Errorf("source: sync %s: %w", row.Name, errors.Join(syncErr, db.Classify(err)))
	}
	if syncErr != nil {
		return true, fmt.Errorf("source: sync %s: %w", row.Name, syncErr)
	}
	return true, nil
}

// interval is d as a PostgreSQL interval.
func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

// claimed is a source being synced.
type claimed struct {
	db.ClaimDueCatalogueSourceRow
	// ref is an OCI source's repository; index an index source's address.
	ref   oci.Ref
	index *url.URL
	keys  []oci.Key
	hosts release.ChartHosts
}

// reader reads one of a source's versions by its tag: a Version (refused
// with why, or imported) and the driver it holds when known; an error
// means the source could not be read (try again later).
type reader func(ctx context.Context, src *claimed, tag string) (Version, string, error)

// sync reads the source's tags and each new one, at most MaxNewPerSync.
func (s *Service) sync(ctx context.Context, row db.ClaimDueCatalogueSourceRow) error {
	src, err := s.claim(ctx, row)
	if err != nil {
		return err
	}
	list := s.ociVersions
	if row.Kind == KindIndex {
		list = s.indexVersions
	}
	tags, read, err := list(ctx, src)
	if err != nil {
		return err
	}
	known, err := s.q.ListCatalogueSourceTags(ctx, row.ID)
	if err != nil {
		return db.Classify(err)
	}
	done := 0
	for _, tag := range tags {
		if slices.Contains(known, tag) {
			continue // read before
		}
		if done == MaxNewPerSync {
			break
		}
		done++
		v, driver, err := read(ctx, src, tag)
		if err != nil {
			return err
		}
		if err := s.record(ctx, src, v, driver); err != nil {
			return err
		}
	}
	return nil
}

// ociVersions lists an OCI source's tags, sorted, but cosign's.
func (s *Service) ociVersions(ctx context.Context, src *claimed) ([]string, reader, error) {
	var tags []string
	err := s.download.Download(ctx, src.hosts, src.download("The tag list of "+src.Url), func(hc *http.Client) (err error) {
		tags, err = s.client(hc).Tags(ctx, src.ref)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	tags = slices.DeleteFunc(tags, func(tag string) bool { return strings.HasPrefix(tag, "sha256-") }) // signatures, attachments
	slices.Sort(tags)
	return tags, s.readVersion, nil
}

// claim decodes a claimed row's repository and keys, and reads the hosts an
// admin allows.
func (s *Service) claim(ctx context.Context, row db.ClaimDueCatalogueSourceRow) (*claimed, error) {
	src, err := sourceOf(db.GetCatalogueSourceRow{Name: row.Name, Url: row.Url, Keys: row.Keys})
	if err != nil {
		return nil, err
	}
	c := &claimed{ClaimDueCatalogueSourceRow: row}
	if row.Kind == KindIndex {
		c.index, err = parseIndexURL(row.Url)
	} else {
		c.ref, err = parseRepository(row.Url)
	}
	if err != nil {
		return nil, err
	}
	keys, problem := verifiers(src.Keys)
	if problem != "" {
		return nil, styrmin.Errorf(styrmin.EINVALID, "The source's keys are not valid: %s.", problem)
	}
	c.keys = keys
	if c.hosts, err = s.catalog.ChartHosts(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// download describes a download from the source, for its errors.
func (c *claimed) download(what string) release.Download {
	return release.Download{What: what, Noun: "driver bundle", Again: "sync the source again",
		Missing: fmt.Sprintf("%s cannot be read: the source did not give it. Check the source's address, then sync it again.", what)}
}

// client is an OCI client over hc.
func (s *Service) client(hc *http.Client) oci.Client {
	return oci.Client{HTTP: hc}
}

// readVersion pulls tag, checks its signature and imports it. A version
// refused is a Version with its reason; an error means the source could not
// be read (try again later). driver names the bundle's driver, when known.
func (s *Service) readVersion(ctx context.Context, src *claimed, tag string) (Version, string, error) {
	ref := src.ref.WithReference(tag)
	v := Version{Tag: tag, Status: Refused}
	var art *oci.Artifact
	err := s.download.Download(ctx, src.hosts, src.download("Driver bundle "+ref.String()), func(hc *http.Client) (err error) {
		c := s.client(hc)
		if art, err = c.Pull(ctx, ref, s.MaxArchive); err != nil || len(src.keys) == 0 {
			return err
		}
		v.SignedBy, err = c.Verify(ctx, ref, art.Digest, src.keys)
		if styrmin.ErrorCode(err) == styrmin.EINVALID && !src.SignedOnly {
			return nil // unsigned versions are allowed here
		}
		return err
	})
	if art != nil {
		v.Digest = art.Digest
	}
	switch {
	case styrmin.ErrorCode(err) == styrmin.EINVALID:
		v.Reason = refusal(err)
		return v, "", nil
	case err != nil:
		return v, "", err
	}
	return s.importVersion(ctx, v, art.Archive, catalog.ArchiveImport{
		By: "source " + src.Name, Origin: catalog.Origin{Source: src.Name, SignedBy: v.SignedBy}, Tag: tag})
}

// importVersion imports the archive of v, checked, into the catalogue, as
// imp says: v imported, or refused with why when the archive is not a
// valid bundle; the driver it holds when it loaded.
func (s *Service) importVersion(ctx context.Context, v Version, archive []byte, imp catalog.ArchiveImport) (Version, string, error) {
	res, err := s.catalog.ImportArchive(ctx, bytes.NewReader(archive), imp)
	var ps drivers.Problems
	switch code := styrmin.ErrorCode(err); {
	case err == nil:
		v.Status = Imported
	case errors.As(err, &ps):
		v.Reason = "not a valid bundle: the bundle breaks the driver contract (styrmin driver lint shows how)"
	case code == styrmin.EINVALID || code == styrmin.ECONFLICT:
		v.Reason = "not a valid bundle: " + styrmin.ErrorMessage(err)
	default:
		return v, res.Name, err
	}
	return v, res.Name, nil
}

// refusal says why a version was refused before its import.
func refusal(err error) string {
	switch {
	case errors.Is(err, oci.ErrUnsigned):
		return "unsigned: the source requires a signature by one of its keys"
	case errors.Is(err, oci.ErrBadSignature):
		return "bad signature: no signature by one of the source's keys signs this content"
	}
	return styrmin.ErrorMessage(err)
}

// record stores what became of a version, with its audit entry.
func (s *Service) record(ctx context.Context, src *claimed, v Version, driver string) error {
	entry := audit.Entry{
		Actor:   audit.Actor{Name: "source " + src.Name, Via: audit.ViaSource},
		Action:  audit.ActionSourceImport,
		Target:  audit.Target{Kind: audit.TargetDriver, Name: driver},
		Outcome: audit.Allowed,
		Detail:  map[string]string{"source": src.Name, "tag": v.Tag, "digest": v.Digest, "signed_by": v.SignedBy},
	}
	if v.Status == Refused {
		entry.Outcome, entry.Reason = audit.Refused, v.Reason
	}
	err := pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		if err := s.q.WithTx(tx).InsertCatalogueSourceVersion(ctx, db.InsertCatalogueSourceVersionParams{SourceID: src.ID, Tag: v.Tag,
			Digest: v.Digest, Status: v.Status, Reason: v.Reason, SignedBy: v.SignedBy}); err != nil {
			return err
		}
		return audit.Record(ctx, tx, entry)
	})
	if err != nil {
		return fmt.Errorf("record %s: %w", v.Tag, db.Classify(err))
	}
	return nil
}
