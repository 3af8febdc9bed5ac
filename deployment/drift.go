package deployment

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployer"
	"github.com/styrmin/styrmin/drift"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/redact"
	"github.com/styrmin/styrmin/release"
)

// The words of a deployment's drift.
const (
	// DriftSynced: every object of the release holds what its manifest sets.
	DriftSynced = "Synced"
	// DriftDrifted: an object was changed or deleted behind Styrmin's back,
	// and no operator accepted that difference.
	DriftDrifted = "Drifted"
	// DriftUnknown: Styrmin could not compare (Reason says why).
	DriftUnknown = "Unknown"
)

// DriftTimeout bounds one read of a deployment's drift (a GET per object
// of its release, at most drift.MaxObjects).
const DriftTimeout = 20 * time.Second

// DriftEvery is how often WatchDrift reads every deployment's drift.
const DriftEvery = 2 * time.Minute

// Drift is how the objects of a deployment's release differ from the
// manifest Helm applied, read as the namespace's reviewer.
type Drift struct {
	// Name is the deployment's.
	Name string
	// Word is DriftSynced, DriftDrifted or DriftUnknown.
	Word string
	// Reason says why the word is DriftUnknown.
	Reason string
	// Revision is the release's revision whose manifest was compared.
	Revision int
	// Objects are the objects that differ, in the manifest's order, their
	// Secret values masked and the deployment's secrets redacted.
	Objects []drift.ObjectDiff
	// Accepted are the objects that differ exactly as an operator accepted
	// (AcceptDrift): no drift, listed apart, as Objects are.
	Accepted []drift.ObjectDiff
	// Checked counts the objects compared.
	Checked int
	// Unchecked are the objects that could not be read, with why.
	Unchecked []UncheckedObject
	// At is when the cluster was read.
	At time.Time
}

// UncheckedObject is an object of the release that could not be read.
type UncheckedObject struct {
	drift.Ref
	Why string
}

// Drift returns how the deployment's release differs from its manifest,
// read from the cluster at most HealthFresh ago: an unknown or deleted
// name is an ENOTFOUND error; a cluster that cannot be read is the word
// DriftUnknown.
func (s *Service) Drift(ctx context.Context, name string) (*Drift, error) {
	d, err := s.getLive(ctx, name, "drift")
	if err != nil {
		return nil, err
	}
	if dr, ok := s.drifts.newest(name); ok && time.Since(dr.At) < HealthFresh {
		return dr, nil
	}
	return s.readDrift(ctx, d), nil
}

// CheckDriftNow reads the deployment's drift from the cluster, whatever was
// read before (a reconcile's end); errors are Drift's.
func (s *Service) CheckDriftNow(ctx context.Context, name string) (*Drift, error) {
	d, err := s.getLive(ctx, name, "drift")
	if err != nil {
		return nil, err
	}
	return s.readDrift(ctx, d), nil
}

// readDrift reads d's drift from the cluster, records and returns it.
func (s *Service) readDrift(ctx context.Context, d *Deployment) *Drift {
	dr, err := s.compareRelease(ctx, d)
	if err != nil {
		dr = &Drift{Name: d.Name, Word: DriftUnknown, Reason: clusterMessage(err), At: time.Now()}
	}
	r, err := s.deploymentRedactor(ctx, d.ID)
	if err != nil {
		s.log.Error("deployment: open the secrets of a deployment's drift", "deployment", d.Name, "error", err)
		dr = &Drift{Name: d.Name, Word: DriftUnknown, At: time.Now(),
			Reason: "Styrmin could not open this deployment's secrets, so it does not show how the cluster differs (they would not be hidden); the server log has the details."}
	} else {
		dr.redact(r)
	}
	s.drifts.put(d.Name, dr)
	return dr
}

// compareRelease compares d's release's last manifest with its live objects.
func (s *Service) compareRelease(ctx context.Context, d *Deployment) (*Drift, error) {
	cluster, err := s.NeedCluster()
	if err != nil {
		return nil, err
	}
	if cluster.Objects == nil {
		return nil, styrmin.Errorf(styrmin.EUNAVAILABLE, "This Styrmin reads no object of the cluster.")
	}
	ctx, cancel := context.WithTimeout(ctx, DriftTimeout)
	defer cancel()
	rel, err := cluster.Releases.Status(ctx, d.Namespace, d.Name)
	if err != nil {
		return nil, err
	}
	objs, err := drift.Objects(rel.Manifest)
	if err != nil {
		return nil, err
	}
	refs := make([]kube.ObjectRef, len(objs))
	for i, o := range objs {
		refs[i] = kube.ObjectRef(o.Ref)
	}
	reads, err := cluster.Objects.Get(ctx, deployer.ReviewerImpersonation(d.Namespace), d.Namespace, refs)
	if err != nil {
		return nil, err
	}
	dr := &Drift{Name: d.Name, Word: DriftSynced, Revision: rel.Number, At: time.Now()}
	opts := drift.Options{Stopped: replicasHeldApart(d, objs)}
	var diffs []drift.ObjectDiff
	for i, o := range objs {
		if reads[i].Err != nil {
			dr.Unchecked = append(dr.Unchecked, UncheckedObject{Ref: o.Ref, Why: reads[i].Err.Error()})
			continue
		}
		dr.Checked++
		if diff := drift.Compare(o, reads[i].Object, opts); diff != nil {
			diffs = append(diffs, *diff)
		}
	}
	acceptances, err := s.driftAcceptances(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	if dr.Objects, dr.Accepted = drift.Accept(diffs, acceptances); len(dr.Objects) > 0 {
		dr.Word = DriftDrifted
	}
	return dr, nil
}

// driftAcceptances are the differences accepted on the deployment.
func (s *Service) driftAcceptances(ctx context.Context, deploymentID int64) ([]drift.Acceptance, error) {
	rows, err := s.q.ListDriftAcceptances(ctx, deploymentID)
	if err != nil {
		return nil, fmt.Errorf("deployment: drift acceptances: %w", err)
	}
	out := make([]drift.Acceptance, len(rows))
	for i, r := range rows {
		out[i] = drift.Acceptance{Ref: drift.Ref{APIVersion: r.ApiVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}, Fingerprint: r.Fingerprint}
	}
	return out, nil
}

// replicasHeldApart are the workloads whose replicas are no drift: those
// that stops scaled to 0, and those a revision held at 0 while their
// component was stopped (release.HeldAnnotation), which a start has since
// scaled up behind Helm.
func replicasHeldApart(d *Deployment, objs []drift.Object) []drift.Ref {
	var out []drift.Ref
	for _, w := range StoppedWorkloads(d.Components) {
		out = append(out, drift.Ref{Kind: w.Kind, Name: w.Name})
	}
	for _, o := range objs {
		meta, _ := o.Fields["metadata"].(map[string]any)
		annotations, _ := meta["annotations"].(map[string]any)
		if _, held := annotations[release.HeldAnnotation]; held {
			out = append(out, drift.Ref{Kind: o.Kind, Name: o.Name})
		}
	}
	return out
}

// StoppedWorkloads are the workloads that stops scaled to 0, by the
// components' states.
func StoppedWorkloads(states map[string]ComponentState) []kube.Workload {
	var out []kube.Workload
	for _, c := range states {
		if c.Stopped {
			out = append(out, c.Workloads...)
		}
	}
	return out
}

// AcceptDrift accepts the deployment's differences as the cluster holds
// them now, asked by by: each differing object's difference is recorded
// (its fingerprint, replacing earlier acceptances), with the request's
// audit entry, so that the deployment reads Synced until one of those
// objects changes again. Nothing to accept (Synced, or Unknown) is an
// ECONFLICT error; an unknown or deleted name an ENOTFOUND one.
func (s *Service) AcceptDrift(ctx context.Context, name, by string) (*Drift, error) {
	d, err := s.getLive(ctx, name, "drift")
	if err != nil {
		return nil, err
	}
	dr, err := s.compareRelease(ctx, d)
	if err != nil {
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "Styrmin could not read how %s differs from its release, so there is nothing to accept: %s", name, clusterMessage(err))
	}
	if len(dr.Objects) == 0 {
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "Deployment %s does not differ from its release beyond what was accepted: there is nothing to accept.", name)
	}
	all := slices.Concat(dr.Accepted, dr.Objects)
	var audited func()
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if err := q.DeleteDriftAcceptances(ctx, d.ID); err != nil {
			return err
		}
		for _, o := range all {
			if err := q.InsertDriftAcceptance(ctx, db.InsertDriftAcceptanceParams{DeploymentID: d.ID, ApiVersion: o.APIVersion, Kind: o.Kind,
				Namespace: o.Namespace, Name: o.Name, Fingerprint: o.Fingerprint, AcceptedBy: by}); err != nil {
				return err
			}
		}
		audited, err = audit.Within(ctx, tx, name, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("deployment: accept the drift of %s: %w", name, err)
	}
	audited()
	return s.readDrift(ctx, d), nil
}

// redact hides r's secrets in what the cluster or a chart wrote in dr.
func (dr *Drift) redact(r *redact.Redactor) {
	dr.Reason = r.String(dr.Reason)
	for _, objs := range [][]drift.ObjectDiff{dr.Objects, dr.Accepted} {
		for i := range objs {
			for j := range objs[i].Fields {
				f := &objs[i].Fields[j]
				f.Want, f.Have = r.String(f.Want), r.String(f.Have)
			}
		}
	}
	for i := range dr.Unchecked {
		dr.Unchecked[i].Why = r.String(dr.Unchecked[i].Why)
	}
}

// CheckDrift reads the drift of every live deployment from the cluster, a
// deployment at a time, and forgets the drift of those that are gone: what
// the deployments list shows between page views.
func (s *Service) CheckDrift(ctx context.Context) error {
	names, err := s.eachLive(ctx, func(d *Deployment) { s.readDrift(ctx, d) })
	if err != nil {
		return err
	}
	s.drifts.keep(names)
	return nil
}

// WatchDrift runs CheckDrift every DriftEvery until ctx ends.
func (s *Service) WatchDrift(ctx context.Context) {
	s.every(ctx, DriftEvery, "check the deployments' drift", s.CheckDrift)
}
