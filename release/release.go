package release

import (
	"time"

	helmrelease "helm.sh/helm/v3/pkg/release"
)

// Status is the state of one revision of a release, as Helm records it.
type Status string

// The statuses of a revision.
const (
	StatusUnknown         Status = "unknown"
	StatusDeployed        Status = "deployed"
	StatusUninstalled     Status = "uninstalled"
	StatusSuperseded      Status = "superseded"
	StatusFailed          Status = "failed"
	StatusUninstalling    Status = "uninstalling"
	StatusPendingInstall  Status = "pending-install"
	StatusPendingUpgrade  Status = "pending-upgrade"
	StatusPendingRollback Status = "pending-rollback"
)

// Pending reports whether an operation on the revision is under way (or was
// under way when the process running it stopped: see RecoverPending).
func (s Status) Pending() bool {
	return s == StatusPendingInstall || s == StatusPendingUpgrade || s == StatusPendingRollback
}

// Revision is one entry of a release's history.
type Revision struct {
	// Number is Helm's revision number, from 1.
	Number int
	// Status is the revision's state.
	Status Status
	// Chart is the chart's name.
	Chart string
	// ChartVersion is the chart's version.
	ChartVersion string
	// AppVersion is the chart's appVersion, as written in Chart.yaml (e.g. "v1.2.3" or "1.2.3").
	AppVersion string
	// Updated is when the revision was last deployed.
	Updated time.Time
	// Description is Helm's one-line account, such as "Upgrade complete" or an error.
	Description string
}

// Release is one revision of a release with what it rendered.
type Release struct {
	// Name is the release name.
	Name string
	// Namespace is where the release and its records live.
	Namespace string
	Revision
	// Manifest is the rendered chart (hooks excluded). Secrets appear in the
	// clear: show it only through DiffManifests.
	Manifest string
	// Notes is the rendered NOTES.txt, "" when the chart has none.
	Notes string
}

// fromHelm converts Helm's record of a revision.
func fromHelm(r *helmrelease.Release) *Release {
	rel := &Release{Name: r.Name, Namespace: r.Namespace, Revision: revisionOf(r), Manifest: r.Manifest}
	if r.Info != nil {
		rel.Notes = r.Info.Notes
	}
	return rel
}

// revisionOf summarises Helm's record of a revision.
func revisionOf(r *helmrelease.Release) Revision {
	rev := Revision{Number: r.Version, Status: StatusUnknown}
	if r.Info != nil {
		rev.Status = Status(r.Info.Status)
		rev.Updated = r.Info.LastDeployed.Time
		rev.Description = r.Info.Description
	}
	if r.Chart != nil && r.Chart.Metadata != nil {
		rev.Chart = r.Chart.Metadata.Name
		rev.ChartVersion = r.Chart.Metadata.Version
		rev.AppVersion = r.Chart.Metadata.AppVersion
	}
	return rev
}
