package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/oci"
)

// Limits on an index source.
const (
	// MaxIndexBytes bounds an index.yaml.
	MaxIndexBytes = 1 << 20
	// MaxIndexEntries bounds the versions an index lists, all drivers together.
	MaxIndexEntries = 1000
	// maxSignatureBytes bounds an archive's .sig file.
	maxSignatureBytes = 4 << 10
	// maxEntryField bounds an entry's driver name and version.
	maxEntryField = 100
)

// IndexAPIVersion is the only apiVersion an index has.
const IndexAPIVersion = "v1"

// Index is an index source's index.yaml, shaped as a Helm repository's:
//
//	apiVersion: v1
//	entries:
//	  hello-web:
//	    - version: 1.0.1
//	      digest: sha256:<the archive's sha256, hex>
//	      urls: [hello-web-1.0.1.tar.gz]
//
// Each entry is a bundle archive as `styrmin driver package` writes it, at
// its first URL (https, or relative to the index's), signed (when it is) by
// a cosign signature of the archive's bytes at that URL + ".sig", as
// `cosign sign-blob --output-signature` writes it (base64). Other fields
// are ignored.
type Index struct {
	APIVersion string                  `json:"apiVersion"`
	Entries    map[string][]IndexEntry `json:"entries"`
}

// IndexEntry is one version of a driver an index lists.
type IndexEntry struct {
	Version string   `json:"version"`
	Digest  string   `json:"digest"`
	URLs    []string `json:"urls"`
}

// entry is an index entry with its driver's name.
type entry struct {
	IndexEntry
	name string
}

// tag is how a source's versions record the entry: NAME@VERSION.
func (e entry) tag() string {
	return e.name + "@" + e.Version
}

// digestPattern is an entry's digest.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// problem says what is wrong with the entry, if anything.
func (e entry) problem() string {
	switch {
	case e.name == "" || len(e.name) > maxEntryField || e.Version == "" || len(e.Version) > maxEntryField:
		return fmt.Sprintf("an entry needs a driver name and a version of at most %d characters", maxEntryField)
	case !digestPattern.MatchString(e.Digest):
		return fmt.Sprintf("its digest %q is not sha256: followed by the archive's sha256 in 64 lower-case hex digits", e.Digest)
	case len(e.URLs) == 0:
		return "it has no urls: give the archive's address, https or relative to the index"
	}
	return ""
}

// parseIndexURL reads an index source's address: https://HOST/PATH/index.yaml.
func parseIndexURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		!strings.HasSuffix(u.Path, "/index.yaml") {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%q is not an index's address: write https://HOST/PATH/index.yaml, "+
			"such as https://drivers.example.com/index.yaml (an OCI repository is oci://HOST/REPOSITORY).", raw)
	}
	return u, nil
}

// parseIndex decodes an index.yaml and returns its entries by tag, sorted;
// an EINVALID error says why the index cannot be read.
func parseIndex(what string, data []byte) ([]entry, error) {
	var idx Index
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: fmt.Sprintf("%s is not an index: it is not YAML with apiVersion and entries.", what)}
	}
	if idx.APIVersion != IndexAPIVersion {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s has apiVersion %q; an index has apiVersion: %s.", what, idx.APIVersion, IndexAPIVersion)
	}
	n := 0
	for _, list := range idx.Entries {
		n += len(list)
	}
	if n > MaxIndexEntries {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s lists %d versions; a source reads at most %d. List fewer (drop old versions, or split the index).",
			what, n, MaxIndexEntries)
	}
	out := make([]entry, 0, n)
	for name, list := range idx.Entries {
		for _, e := range list {
			out = append(out, entry{IndexEntry: e, name: name})
		}
	}
	slices.SortStableFunc(out, func(a, b entry) int { return strings.Compare(a.tag(), b.tag()) })
	return slices.CompactFunc(out, func(a, b entry) bool { return a.tag() == b.tag() }), nil
}

// indexVersions reads the index and returns its entries' tags and how to
// read each.
func (s *Service) indexVersions(ctx context.Context, src *claimed) ([]string, reader, error) {
	var data []byte
	what := "The index " + src.index.String()
	err := s.download.Download(ctx, src.hosts, src.download(what), func(hc *http.Client) (err error) {
		data, err = get(ctx, hc, what, src.index.String(), MaxIndexBytes)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	entries, err := parseIndex(what, data)
	if err != nil {
		return nil, nil, err
	}
	byTag := make(map[string]entry, len(entries))
	tags := make([]string, 0, len(entries))
	for _, e := range entries {
		byTag[e.tag()] = e
		tags = append(tags, e.tag())
	}
	return tags, func(ctx context.Context, src *claimed, tag string) (Version, string, error) {
		return s.readEntry(ctx, src, byTag[tag])
	}, nil
}

// errNotThere is a download the server answered 404 Not Found.
var errNotThere = errors.New("not found")

// errDigest is an archive whose sha256 is not its entry's.
var errDigest = errors.New("digest mismatch")

// readEntry downloads the entry's archive, checks its digest and signature
// and imports it; as readVersion does for a tag.
func (s *Service) readEntry(ctx context.Context, src *claimed, e entry) (Version, string, error) {
	v := Version{Tag: e.tag(), Digest: e.Digest, Status: Refused}
	if problem := e.problem(); problem != "" {
		v.Reason = "not a valid entry: " + problem
		return v, "", nil
	}
	u, err := src.index.Parse(e.URLs[0])
	if err != nil || u.Scheme != "https" {
		v.Reason = fmt.Sprintf("not a valid entry: its url %q is not https or relative to the index", e.URLs[0])
		return v, "", nil
	}
	var archive, sig []byte
	what := "Driver bundle " + u.String()
	err = s.download.Download(ctx, src.hosts, src.download(what), func(hc *http.Client) (err error) {
		if archive, err = get(ctx, hc, what, u.String(), s.MaxArchive); err != nil {
			return err
		}
		if got := sha256.Sum256(archive); "sha256:"+hex.EncodeToString(got[:]) != e.Digest {
			return &styrmin.Error{Code: styrmin.EINVALID, Err: errDigest, Message: fmt.Sprintf(
				"its sha256 is sha256:%s, not %s as the index says: the archive changed, or the index is wrong", hex.EncodeToString(got[:]), e.Digest)}
		}
		if len(src.keys) == 0 {
			return nil
		}
		sig, err = get(ctx, hc, "The signature "+u.String()+".sig", u.String()+".sig", maxSignatureBytes)
		if errors.Is(err, errNotThere) {
			sig, err = nil, nil
		}
		return err
	})
	switch {
	case errors.Is(err, errDigest):
		v.Reason = "digest mismatch: " + styrmin.ErrorMessage(err)
		return v, e.name, nil
	case errors.Is(err, errNotThere):
		v.Reason = fmt.Sprintf("missing: %s answers 404 Not Found", u)
		return v, e.name, nil
	case styrmin.ErrorCode(err) == styrmin.EINVALID:
		v.Reason = styrmin.ErrorMessage(err)
		return v, e.name, nil
	case err != nil:
		return v, e.name, err
	}
	if len(src.keys) > 0 {
		v.SignedBy, err = oci.VerifyBlob(archive, sig, src.keys)
		if err != nil && src.SignedOnly {
			v.Reason = refusal(err)
			return v, e.name, nil
		}
	}
	return s.importVersion(ctx, v, archive, catalog.ArchiveImport{By: "source " + src.Name,
		Origin: catalog.Origin{Source: src.Name, SignedBy: v.SignedBy}, Entry: catalog.Imported{Name: e.name, Version: e.Version}})
}

// get downloads href with hc, at most limit bytes (what names it in the
// error when it is larger). A 404 answer wraps errNotThere.
func get(ctx context.Context, hc *http.Client, what, href string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, href, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("GET %s: %w", href, errNotThere)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET %s: %s", href, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", href, err)
	}
	if int64(len(data)) > limit {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s is larger than %d KiB.", what, limit>>10)
	}
	return data, nil
}
