package deployment

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// LiveTimeout bounds the cluster reads of a deployment page, so that an
// unreachable cluster makes the page say so instead of hanging it.
const LiveTimeout = 5 * time.Second

// Live is what the cluster says of a deployment now, with the revision
// history Styrmin recorded. Err says, in plain words, why the cluster could
// not be read; what could be read is still there.
type Live struct {
	Err string
	// ReleaseMissing says, when Helm has no release of a deployment that
	// Styrmin installed and no task holds, that it went and what to do; ""
	// otherwise.
	ReleaseMissing string
	Components     []LiveComponent
	Services       []LiveService
	// Notes is the chart's rendered NOTES.txt of the current revision.
	Notes   string
	History []Revision
	// ImageSubstitutions are the images the local cluster runs instead of
	// the ones the release's pods request, each once; none elsewhere.
	ImageSubstitutions []kube.ImageSubstitution
	// Health is the deployment's health with the release's pods, claims and
	// events (the word Unknown when the cluster could not say); nil for a
	// deleted deployment.
	Health *Health
}

// LiveComponent is a component with its workloads' desired and ready replicas.
type LiveComponent struct {
	Name, Title string
	Stopped     bool
	Workloads   []kube.Workload
}

// LiveService is a declared service with its in-cluster address.
type LiveService struct {
	Name, Title, Protocol string
	Port                  int
	// Address is <service>.<namespace>.svc:<port>; "" when no Service of the
	// release serves it (yet).
	Address string
	// URL is scheme://address[path] when the driver gives a scheme.
	URL string
}

// Revision is one Helm revision of the deployment with what Styrmin recorded
// for it (driver and application versions).
type Revision struct {
	release.Revision
	// DriverVersion and AppVersion are those Styrmin recorded; empty for a
	// revision Styrmin did not make.
	DriverVersion, AppVersion string
	// Current is the revision in place now.
	Current bool
	// CanRollBack is true for an earlier revision whose values Styrmin recorded.
	CanRollBack bool
}

// Live reads the deployment's components, services, notes, history and
// image substitutions from the cluster. drv is the spec of the deployment's driver version when the
// caller has it already; nil has Live read it from the catalogue. It never
// fails: a cluster that does not answer is reported in Live.Err.
func (s *Service) Live(ctx context.Context, d *Deployment, drv *drivers.Driver) *Live {
	live := &Live{}
	recorded, err := s.q.ListRevisions(ctx, db.ListRevisionsParams{DeploymentID: d.ID, MaxRows: int32(s.revisionsShown())})
	if err != nil {
		live.Err = "Styrmin could not read the revision history: " + err.Error()
		return live
	}
	if d.DeletedAt != nil {
		live.History = recordedHistory(recorded)
		return live
	}
	cluster, err := s.NeedCluster()
	if err != nil {
		live.Err = styrmin.ErrorMessage(err)
		live.Health = unknownHealth(d, live.Err)
		live.History = recordedHistory(recorded)
		return live
	}
	ctx, cancel := context.WithTimeout(ctx, LiveTimeout)
	defer cancel()
	if drv == nil {
		drv, err = s.driverSpec(ctx, d)
	}
	if err == nil {
		err = s.readCluster(ctx, cluster, d, drv, recorded, live)
	}
	if err != nil {
		live.Err = clusterMessage(err)
		live.Health = unknownHealth(d, live.Err)
	}
	if live.History == nil {
		live.History = recordedHistory(recorded)
	}
	if err := s.hideSecrets(ctx, d.ID, live); err != nil {
		s.log.Error("deployment: open the secrets of a live deployment", "deployment", d.Name, "error", err)
		why := "Styrmin could not open this deployment's secrets, so it does not show what the cluster says of it (they would not be hidden); the server log has the details."
		return &Live{Err: why, History: recordedHistory(recorded), Health: unknownHealth(d, why)}
	}
	s.recordHealth(ctx, live.Health)
	return live
}

// revisionsShown is how many revisions a deployment's page shows: as many
// as Helm keeps of a release, whose history is what a rollback can go back to.
func (s *Service) revisionsShown() int {
	if s.cluster == nil {
		return release.DefaultMaxHistory
	}
	return s.cluster.Releases.MaxHistory()
}

// hideSecrets redacts, in what the cluster said, the texts that a chart or
// Helm wrote and that could hold the deployment's secret values: its notes,
// its revisions' descriptions, the cluster's error and its health's texts.
func (s *Service) hideSecrets(ctx context.Context, id int64, live *Live) error {
	r, err := s.deploymentRedactor(ctx, id)
	if err != nil {
		return err
	}
	live.Err, live.Notes = r.String(live.Err), r.String(live.Notes)
	for i := range live.History {
		live.History[i].Description = r.String(live.History[i].Description)
	}
	live.Health.redact(r)
	return nil
}

// driverSpec returns the decoded spec of d's driver version, which the
// catalogue decodes once per content digest and shares: read it, never
// modify it.
func (s *Service) driverSpec(ctx context.Context, d *Deployment) (*drivers.Driver, error) {
	spec, err := s.catalog.Spec(ctx, d.Driver, d.DriverVersion)
	if err != nil {
		return nil, err
	}
	return spec.Driver, nil
}

// readCluster fills live from the cluster.
func (s *Service) readCluster(ctx context.Context, cluster *Cluster, d *Deployment, drv *drivers.Driver, recorded []db.Revision, live *Live) error {
	history, err := cluster.Releases.History(ctx, d.Namespace, d.Name)
	if err != nil && !isNotFound(err) {
		return err
	}
	switch {
	case len(history) == 0 && len(recorded) > 0 && !d.Busy:
		live.ReleaseMissing = fmt.Sprintf("Helm has no release %s in namespace %s, though Styrmin installed it: it was uninstalled outside Styrmin, or the cluster was replaced (the local development cluster starts empty each time). Delete this deployment to forget it, then deploy again.", d.Name, d.Namespace)
		live.History = recordedHistory(recorded)
	default:
		live.History = mergeHistory(history, recorded)
	}
	// A release with no history has no notes either: no need to ask.
	if len(history) > 0 {
		if status, err := cluster.Releases.Status(ctx, d.Namespace, d.Name); err == nil {
			live.Notes = status.Notes
		}
	}
	state, err := cluster.ReleaseState(ctx, d.Namespace, d.Name)
	if err != nil {
		return err
	}
	live.ImageSubstitutions = state.ImageSubstitutions
	live.Health = newHealth(d, drv.Spec.Components, state, live.ReleaseMissing != "")
	live.Components = live.Health.Components
	workloads := map[string][]kube.Workload{}
	for _, c := range live.Components {
		workloads[c.Name] = c.Workloads
	}
	services, err := cluster.Kube.ReleaseServices(ctx, d.Namespace, d.Name)
	if err != nil {
		return err
	}
	for _, sv := range drv.Spec.Services {
		ls := declaredService(sv)
		if k, ok := kube.ComponentService(services, workloads[sv.Component], int32(sv.Port), ls.Protocol); ok {
			ls.Address = k.Address(int32(sv.Port))
			if sv.Scheme != "" {
				ls.URL = sv.Scheme + "://" + ls.Address + sv.Path
			}
		}
		live.Services = append(live.Services, ls)
	}
	return nil
}

// mergeHistory lists Helm's revisions, newest first, with what Styrmin recorded of each.
func mergeHistory(history []release.Revision, recorded []db.Revision) []Revision {
	byNumber := map[int]db.Revision{}
	for _, r := range recorded {
		byNumber[int(r.Revision)] = r
	}
	out := make([]Revision, 0, len(history))
	for i := len(history) - 1; i >= 0; i-- {
		h := history[i]
		r := Revision{Revision: h, Current: i == len(history)-1 && h.Status == release.StatusDeployed}
		if rec, ok := byNumber[h.Number]; ok {
			r.DriverVersion, r.AppVersion = rec.DriverVersion, rec.AppVersion
			r.CanRollBack = !r.Current
		}
		out = append(out, r)
	}
	return out
}

// recordedHistory is the history Styrmin recorded, when Helm's cannot be
// read or has none, with unknown statuses.
func recordedHistory(recorded []db.Revision) []Revision {
	out := make([]Revision, 0, len(recorded))
	for _, r := range recorded {
		out = append(out, Revision{
			Revision:      release.Revision{Number: int(r.Revision), Status: release.StatusUnknown, Updated: r.CreatedAt},
			DriverVersion: r.DriverVersion, AppVersion: r.AppVersion,
		})
	}
	return out
}

// clusterMessage says in plain words why the cluster could not be read.
func clusterMessage(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("The Kubernetes cluster did not answer within %s; what it runs now is not shown.", LiveTimeout)
	}
	if code := styrmin.ErrorCode(err); code == styrmin.EUNAVAILABLE {
		return styrmin.ErrorMessage(err) + " What it runs now is not shown."
	}
	return "Styrmin could not read the deployment from the cluster: " + err.Error()
}
