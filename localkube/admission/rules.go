// Package admission is the local cluster's mutating admission webhook: it
// runs every pod's containers on the images built on the machine, by the
// rules of package substitute, and records each substitution in the pod's
// substitute.Annotation, so that nothing is substituted silently.
package admission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/distribution/reference"

	"github.com/styrmin/styrmin/localkube/substitute"
)

// LocalRegistry is the registry part of every image built on the machine
// (styrmin.local/postgres:15): such images run as requested.
const LocalRegistry = "styrmin.local"

// noSubstitutePath is the repository a container with no substitute is sent
// to, under LocalRegistry: no image is ever built there, so the kubelet's
// ErrImageNeverPull names it (styrmin.local/no-substitute/foo:1).
const noSubstitutePath = LocalRegistry + "/no-substitute"

// Rules are the substitution rules by requested repository.
type Rules struct {
	byRepository map[string]substitute.Rule
	// builds names what the rules stand in for, in familiar form, sorted
	// (postgres, redis), for the message of a container with no substitute.
	builds []string
}

// NewRules checks rules and indexes them: each Repository normalized
// (docker.io/library/postgres), without tag or digest and given once; each
// Image under LocalRegistry; each Runs said.
func NewRules(rules []substitute.Rule) (*Rules, error) {
	r := &Rules{byRepository: make(map[string]substitute.Rule, len(rules))}
	for _, rule := range rules {
		if err := checkRule(rule); err != nil {
			return nil, fmt.Errorf("admission: substitution rule %q: %w", rule.Repository, err)
		}
		if _, twice := r.byRepository[rule.Repository]; twice {
			return nil, fmt.Errorf("admission: substitution rule %q: the repository has two rules", rule.Repository)
		}
		r.byRepository[rule.Repository] = rule
		named, _ := reference.ParseNormalizedNamed(rule.Repository) //nolint:errcheck // checkRule parsed it
		r.builds = append(r.builds, reference.FamiliarName(named))
	}
	slices.Sort(r.builds)
	return r, nil
}

// checkRule says what is wrong with one rule, nil when nothing is.
func checkRule(rule substitute.Rule) error {
	named, err := reference.ParseNormalizedNamed(rule.Repository)
	if err != nil {
		return fmt.Errorf("not an image repository: %w", err)
	}
	if !reference.IsNameOnly(named) || named.Name() != rule.Repository {
		return fmt.Errorf("the repository must be written normalized, without tag or digest: %s", reference.TrimNamed(named).Name())
	}
	if !isLocal(rule.Image) {
		return fmt.Errorf("image %q is not an image under %s/", rule.Image, LocalRegistry)
	}
	if strings.TrimSpace(rule.Runs) == "" {
		return fmt.Errorf("it does not say what runs")
	}
	return nil
}

// isLocal reports whether image is a valid reference to an image built on
// the machine.
func isLocal(image string) bool {
	named, err := reference.ParseNormalizedNamed(image)
	return err == nil && reference.Domain(named) == LocalRegistry
}

// decision is what one container runs instead of what it requested.
type decision struct {
	// image is the image the container gets.
	image string
	// entry is its line in substitute.Annotation.
	entry substitute.Substitution
}

// maxQuoted bounds how much of a requested image a message quotes: the
// reference grammar allows no more than a few hundred characters, and an
// invalid one may be of any length.
const maxQuoted = 512

// decide says what container, which requested image, runs; nil when it
// runs what it requested (an image built on the machine, or no image at
// all, which the API server refuses on its own).
func (r *Rules) decide(container, image string) *decision {
	if image == "" || isLocal(image) {
		return nil
	}
	entry := substitute.Substitution{Container: container, Requested: image}
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		entry.Runs = fmt.Sprintf("%q is not an image reference (%v), so no image on the local cluster stands in for it", quoted(image), err)
		return &decision{image: image, entry: entry}
	}
	rule, ok := r.byRepository[reference.TrimNamed(named).Name()]
	if !ok {
		entry.Runs = fmt.Sprintf("no image on the local cluster stands in for %s; the local cluster builds %s", reference.FamiliarString(named), r.buildsText())
		return &decision{image: missingImage(named), entry: entry}
	}
	entry.Image, entry.Runs = rule.Image, rule.Runs
	return &decision{image: rule.Image, entry: entry}
}

// buildsText lists what the local cluster builds, for a message.
func (r *Rules) buildsText() string {
	if len(r.builds) == 0 {
		return "no image yet"
	}
	return strings.Join(r.builds, ", ")
}

// missingImage is the image a container with no substitute gets: one that
// names what it requested under noSubstitutePath, and is never built.
func missingImage(requested reference.Named) string {
	image := noSubstitutePath + "/" + reference.FamiliarString(requested)
	if _, err := reference.ParseNormalizedNamed(image); err != nil {
		return noSubstitutePath // the requested name was too long to prefix
	}
	return image
}

// quoted is s, cut to maxQuoted bytes with an ellipsis when longer.
func quoted(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return strings.ToValidUTF8(s[:maxQuoted], "") + "…"
}
