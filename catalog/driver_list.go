package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Entry is one driver of the catalogue, described by its newest version.
type Entry struct {
	Name    string
	Version string
	Title   string
	Summary string
	Labels  map[string]string
	HasIcon bool
	// Versions is how many versions of the driver the catalogue holds.
	Versions int
	// All are the driver's versions, oldest first by semantic version
	// precedence (a version's development builds after it).
	All []string
}

// UpdateFor is the newest of e's versions that is newer than deployed by
// semantic version precedence and is offered to its deployments: a
// pre-release only to a deployment of a pre-release, a development build only
// to one of a development build. It is "" when there is none, or when
// deployed is no semantic version. Refused versions of a source never enter
// the catalogue, so every version is one a deployment can move to.
func (e Entry) UpdateFor(deployed string) string {
	from, err := semver.StrictNewVersion(deployed)
	if err != nil {
		return ""
	}
	_, _, fromDev := DevBuildOf(deployed)
	for _, v := range slices.Backward(e.All) {
		if compareVersions(v, deployed) <= 0 {
			return ""
		}
		to, err := semver.StrictNewVersion(v)
		_, _, dev := DevBuildOf(v)
		if err == nil && (to.Prerelease() == "" || from.Prerelease() != "") && (!dev || fromDev) {
			return v
		}
	}
	return ""
}

// Listing is the catalogue's drivers at one state of its content.
type Listing struct {
	// Generation numbers the state within this process: two listings with
	// the same Generation hold the same entries.
	Generation uint64
	// Entries are every driver with its newest version (by semantic version
	// precedence), sorted by title. They are shared: never modify them.
	Entries []Entry
}

// List returns every driver with its newest version (by semantic version
// precedence), sorted by title. Callers share the entries' Labels maps and
// must not modify them.
func (c *Catalog) List(ctx context.Context) ([]Entry, error) {
	l, err := c.Listing(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clone(l.Entries), nil
}

// Listing returns the catalogue's drivers. It is built again only when the
// catalogue's content has changed: while notifications are received
// (ListenOn) it is kept until one says so, otherwise one small query tells.
func (c *Catalog) Listing(ctx context.Context) (Listing, error) {
	c.mu.Lock()
	listed, listening, epoch := c.listed, c.listening, c.epoch
	c.mu.Unlock()
	if listening && listed.Entries != nil {
		return listed.Listing, nil
	}
	generation, err := c.q.GetDriverCatalogueGeneration(ctx)
	if err != nil {
		return Listing{}, fmt.Errorf("catalog: list drivers: %w", err)
	}
	if listed.Entries != nil && listed.generation == generation {
		return listed.Listing, nil
	}
	entries, err := c.list(ctx)
	if err != nil {
		return Listing{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.built++
	built := listing{generation: generation, Listing: Listing{Generation: c.built, Entries: entries}}
	// Notified meanwhile: the entries may be older than the change, so they
	// are answered but not kept.
	if c.epoch == epoch {
		c.listed = built
	}
	return built.Listing, nil
}

// list reads every driver version and keeps the newest of each driver.
func (c *Catalog) list(ctx context.Context) ([]Entry, error) {
	rows, err := c.q.ListDriverVersionSummaries(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: list drivers: %w", err)
	}
	byName := map[string]*Entry{}
	var order []string
	for _, r := range rows {
		e, seen := byName[r.Name]
		if seen {
			e.Versions++
			e.All = append(e.All, r.Version)
			if compareVersions(r.Version, e.Version) <= 0 {
				continue
			}
		} else {
			e = &Entry{Versions: 1, All: []string{r.Version}}
			byName[r.Name] = e
			order = append(order, r.Name)
		}
		labels := map[string]string{}
		if err := json.Unmarshal(r.Labels, &labels); err != nil {
			return nil, fmt.Errorf("catalog: labels of %s %s: %w", r.Name, r.Version, err)
		}
		*e = Entry{Name: r.Name, Version: r.Version, Title: r.Title, Summary: r.Summary,
			Labels: labels, HasIcon: r.HasIcon, Versions: e.Versions, All: e.All}
	}
	out := make([]Entry, 0, len(order))
	for _, name := range order {
		e := byName[name]
		slices.SortFunc(e.All, compareVersions)
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// Search keeps the entries whose name, title, summary or labels contain every
// word of query (case-insensitive) and that carry label ("key=value"; empty
// for any).
func Search(entries []Entry, query, label string) []Entry {
	words := strings.Fields(strings.ToLower(query))
	key, value, _ := strings.Cut(label, "=")
	out := []Entry{}
	for _, e := range entries {
		if v, ok := e.Labels[key]; label != "" && (!ok || v != value) {
			continue
		}
		if matchesAll(e, words) {
			out = append(out, e)
		}
	}
	return out
}

// matchesAll reports whether every word occurs in the entry's searchable text.
func matchesAll(e Entry, words []string) bool {
	var text strings.Builder
	for _, s := range []string{e.Name, e.Title, e.Summary} {
		text.WriteString(strings.ToLower(s))
		text.WriteByte('\n')
	}
	for k, v := range e.Labels {
		text.WriteString(strings.ToLower(k + ":" + v + "\n"))
	}
	haystack := text.String()
	for _, w := range words {
		if !strings.Contains(haystack, w) {
			return false
		}
	}
	return true
}

// Label is one metadata label of a driver.
type Label struct {
	Key   string
	Value string
}

// Labels returns every distinct label of the entries, sorted.
func Labels(entries []Entry) []Label {
	seen := map[Label]bool{}
	for _, e := range entries {
		for k, v := range e.Labels {
			seen[Label{k, v}] = true
		}
	}
	out := make([]Label, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Label) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Value, b.Value))
	})
	return out
}

// compareVersions orders two driver versions by semantic version precedence,
// a version's development builds after it in their order (semver ignores
// build metadata); versions that do not parse (none should: import checks
// them) sort as text.
func compareVersions(a, b string) int {
	va, errA := semver.StrictNewVersion(a)
	vb, errB := semver.StrictNewVersion(b)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	_, buildA, _ := DevBuildOf(a)
	_, buildB, _ := DevBuildOf(b)
	return cmp.Or(va.Compare(vb), cmp.Compare(buildA, buildB))
}
