package release

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"helm.sh/helm/v3/pkg/action"
	helmrelease "helm.sh/helm/v3/pkg/release"

	styrmin "github.com/styrmin/styrmin"
)

// The labels every release Styrmin creates carries (Helm keeps them on the
// release's records, not on the objects it renders).
const (
	// InstallationLabel names the Styrmin installation that created the release.
	InstallationLabel = "styrmin.io/installation"
	// DeploymentLabel names the deployment, by id, the release belongs to.
	DeploymentLabel = "styrmin.io/deployment"
)

// Owner is the Styrmin installation and deployment a release belongs to.
// Install marks the release with it; every other change refuses a release
// not marked with it.
type Owner struct {
	// Installation is the id of the Styrmin installation, generated once and kept in its database.
	Installation string
	// Deployment is the deployment's id.
	Deployment int64
}

// ErrForeign is the cause of every refusal to act on a release Styrmin did not
// create for the deployment at hand.
var ErrForeign = errors.New("release: not created by Styrmin for this deployment")

// Labels are the labels that mark o: on its release's records, and on the
// objects Styrmin itself creates for the deployment (its action pods).
func (o Owner) Labels() map[string]string {
	return map[string]string{InstallationLabel: o.Installation, DeploymentLabel: strconv.FormatInt(o.Deployment, 10)}
}

// owns reports whether Styrmin made revision r for o.
func (o Owner) owns(r *helmrelease.Release) bool {
	return r.Labels[InstallationLabel] == o.Installation && r.Labels[DeploymentLabel] == strconv.FormatInt(o.Deployment, 10)
}

// check refuses an Owner that would match a release without marks: every
// operation needs its deployment's.
func (o Owner) check() error {
	if o.Installation == "" || o.Deployment == 0 {
		return errors.New("release: the operation names no owner (installation and deployment)")
	}
	return nil
}

// refuseForeign returns the refusal to op (a verb: "upgrade") release r,
// which o does not own, saying what to do instead.
func refuseForeign(op string, r *helmrelease.Release) error {
	next := "Delete this deployment (Styrmin leaves that release in place) and deploy under another name or namespace."
	if op == "install" {
		next = "Choose another deployment name or namespace."
	}
	return &styrmin.Error{Code: styrmin.EFORBIDDEN,
		Message: fmt.Sprintf("Release %s in namespace %s was not created by Styrmin for this deployment, so Styrmin will not %s it. %s", r.Name, r.Namespace, op, next),
		Err:     ErrForeign}
}

// IsForeign reports whether err refuses a release that is not the deployment's.
func IsForeign(err error) bool { return errors.Is(err, ErrForeign) }

// lastOwned returns the last revision of release name, refusing (for op) a
// release owner does not own. Errors: driver.ErrReleaseNotFound when there is
// no release of that name.
func lastOwned(cfg *action.Configuration, op, name string, owner Owner) (*helmrelease.Release, error) {
	if err := owner.check(); err != nil {
		return nil, err
	}
	last, err := cfg.Releases.Last(name)
	if err != nil {
		return nil, err
	}
	if !owner.owns(last) {
		return nil, refuseForeign(op, last)
	}
	return last, nil
}

// CheckOwner returns nil when release name in namespace is owner's, for the
// changes made without Helm (a stop scales the release's workloads). Errors:
// EFORBIDDEN (IsForeign) when it is not, ENOTFOUND when there is no such
// release, EUNAVAILABLE when the cluster does not answer.
func (c *Client) CheckOwner(ctx context.Context, namespace, name string, owner Owner) error {
	cfg, err := c.config(ctx, namespace)
	if err == nil {
		_, err = lastOwned(cfg, "change", name, owner)
	}
	if err != nil {
		return fail("check owner", namespace, name, err)
	}
	return nil
}
