package deployment

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/redact"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/requests"
	"github.com/styrmin/styrmin/teams"
)

// Upgrade moves a deployment to a driver version, an application version
// and parameter values, running its driver version's upgrade hook actions
// with Prompts. A user's upgrade is reviewed (Service.Review) and then
// queued as reviewed (ConfirmUpgrade); an action queues one directly
// (Linked).
type Upgrade struct {
	Name string
	// DriverVersion is the driver version to move to (empty: the current one).
	DriverVersion string
	// AppVersion is the application version to move to (empty: the current one).
	AppVersion string
	// Parameters are the new values, read against the deployment's current
	// ones (a JSON value left out, or a blank secret field, keeps its value).
	Parameters Input
	// Prompts are the prompts of the upgrade's hook actions.
	Prompts PromptsInput
	By      string
}

// upgradePlan is a checked upgrade: its target and the values it applies.
type upgradePlan struct {
	*upgradeTarget
	next    Values
	prompts hookPrompts
	changes []Change
	// requests is what the deployment's pods request once upgraded (nil:
	// the chart did not render offline, and the team has no CPU or memory
	// quota), beside its team's figures.
	requests *Requests
}

// plan checks the upgrade of the named live deployment.
func (o *Upgrade) plan(ctx context.Context, s *Service) (plan, error) {
	return s.planLive(ctx, o.Name, o.By, o.planOn)
}

// planOn checks the upgrade of the deployment row and plans its task.
func (o *Upgrade) planOn(ctx context.Context, s *Service, row db.Deployment, dep *Deployment, by string) (*taskPlan, error) {
	p, err := o.check(ctx, s, row, dep)
	if err != nil {
		return nil, err
	}
	inputs, secrets := p.task()
	return &taskPlan{row: row, kind: KindUpgrade, inputs: inputs, secrets: secrets.sealable(), by: by,
		requests: p.after(), countsRequests: true}, nil
}

// check reads the upgrade's target and values, and what its chart,
// rendered offline with them, requests against the team's CPU and memory
// quotas; bad ones are an InvalidError naming each field.
func (o *Upgrade) check(ctx context.Context, s *Service, row db.Deployment, dep *Deployment) (*upgradePlan, error) {
	t, err := s.upgradeTarget(ctx, row, dep, o.DriverVersion, o.AppVersion)
	if err != nil {
		return nil, err
	}
	team, err := s.q.GetTeam(ctx, row.TeamID)
	if err != nil {
		return nil, fmt.Errorf("deployment: read the team's policy: %w", db.Classify(err))
	}
	var errs fieldErrors
	checkUpgradeDriver(team, row, t, &errs)
	if err := t.to.SupportsVersion(t.appVersion); err != nil {
		errs.add(Field{Kind: FieldAppVersion}, err.Error())
	}
	next, bad, shape := readInput(o.Parameters, t.to.Spec.Parameters, &t.current)
	errs.addRead(bad, shape, ParamField)
	prompts := readHookPrompts(t.hookActions, o.Prompts, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	p := &upgradePlan{upgradeTarget: t, next: next, prompts: prompts,
		changes: Compare(t.to.Spec.Parameters, t.current, next)}
	if p.requests, err = s.upgradeRequests(ctx, team, p); err != nil {
		return nil, err
	}
	return p, nil
}

// upgradeRequests renders the upgrade's chart offline with its values and
// checks what its pods request against the team's CPU and memory quotas
// (ConfirmUpgrade checks again under the team's lock); nil when the chart
// does not render offline and the team has no such quota.
func (s *Service) upgradeRequests(ctx context.Context, team db.Team, p *upgradePlan) (*Requests, error) {
	manifest, renderErr, err := s.renderOffline(ctx, p.to, p.bundle.Chart, p.next, p.appVersion, p.row.Namespace, p.row.Name, true)
	if err != nil {
		return nil, err
	}
	after, err := countRequests(team, manifest, renderErr)
	if after == nil || err != nil {
		return nil, err
	}
	others, err := teamRequests(ctx, s.q, team, p.row.ID)
	if err != nil {
		return nil, err
	}
	before := recorded(p.row)
	if err := checkRequests(team, others, *after, before); err != nil {
		return nil, err
	}
	return &Requests{Team: team.Name, Before: before, After: *after, Others: others,
		MaxCPUMillis: team.MaxCpuMillis, MaxMemoryBytes: team.MaxMemoryBytes}, nil
}

// after is what the deployment requests once upgraded; nil when not counted.
func (p *upgradePlan) after() *requests.Totals {
	if p.requests == nil {
		return nil
	}
	return &p.requests.After
}

// checkUpgradeDriver adds to errs a move to a driver version that the
// deployment's team may not deploy (its labels may differ from the current
// version's). An upgrade that keeps the driver version is not checked: a
// policy set since applies to what is deployed next, as it does to
// namespaces.
func checkUpgradeDriver(team db.Team, row db.Deployment, t *upgradeTarget, errs *fieldErrors) {
	if t.to.Spec.Version == row.DriverVersion {
		return
	}
	refuseTeamDriver(team, t.to, errs)
}

// refuseTeamDriver adds to errs, at FieldDriverVersion, that the team may
// not deploy the driver version to.
func refuseTeamDriver(team db.Team, to *drivers.Driver, errs *fieldErrors) {
	if policy := teams.PolicyOf(team); !policy.AllowsDriver(to.Metadata.Name, to.Metadata.Labels) {
		errs.add(Field{Kind: FieldDriverVersion}, fmt.Sprintf("the team %s may not deploy version %s of the driver %s: it may deploy %s; keep the current version, or ask an admin to allow the driver for the team",
			team.Name, to.Spec.Version, to.Metadata.Name, policy.DriversAllowed()))
	}
}

// task is the plan's task: its inputs and its secret inputs.
func (p *upgradePlan) task() (UpgradeInputs, TaskSecretInputs) {
	inputs := UpgradeInputs{
		FromDriverVersion: p.dep.DriverVersion, DriverVersion: p.to.Spec.Version,
		FromAppVersion: p.dep.AppVersion, AppVersion: p.appVersion, Parameters: p.next.Plain,
		Prompts: p.prompts.Plain,
	}
	for _, c := range p.changes {
		if c.Kind != release.Unchanged {
			inputs.Changed = append(inputs.Changed, c.Name)
		}
	}
	return inputs, TaskSecretInputs{Params: p.next.Secrets, Prompts: p.prompts.Secrets}
}

// Review is what an upgrade will change, shown before it is confirmed.
type Review struct {
	Deployment                       *Deployment
	FromDriverVersion, DriverVersion string
	FromAppVersion, AppVersion       string
	// Changes lists each parameter's change; secrets only say whether they change.
	Changes []Change
	// Prompts are what the upgrade's hook actions will run with.
	Prompts []PromptValue
	// Resources is the manifest diff from a Helm dry run, Secret values redacted.
	Resources []release.ResourceDiff
	// DryRunError says why the dry run failed; the upgrade cannot be confirmed then.
	DryRunError string
	// RecoversFirst, when set, says that an earlier operation left the
	// release pending, which the upgrade recovers before anything else (so
	// no dry run can show its changes): it may be confirmed all the same.
	RecoversFirst string
	// Refused is set when the dry run failed because the chart creates
	// what no admin approved for the driver version: what it misses.
	Refused *permissions.RefusedError
	// Requests is what the deployment's pods request before and after,
	// beside its team's other deployments and quotas; nil when the chart
	// does not render offline (and the team has no CPU or memory quota).
	Requests *Requests
	// Token carries the planned upgrade, sealed, to ConfirmUpgrade (or the
	// entered form back to it): secret values never appear in a page.
	Token string
}

// ReviewTTL is how long a review may be confirmed.
const ReviewTTL = 30 * time.Minute

// reviewToken is the sealed content of Review.Token: the planned upgrade's
// task, and what it was planned against.
type reviewToken struct {
	Name string `json:"name"`
	By   string `json:"by"`
	// Inputs and Secrets are the task's inputs and secret inputs as planned.
	Inputs  UpgradeInputs    `json:"inputs"`
	Secrets TaskSecretInputs `json:"secrets"`
	// Entered and EnteredPrompts are the text of the form's plain fields,
	// to fill the form in again (EditUpgrade); empty for JSON values.
	Entered        map[string]string            `json:"entered,omitempty"`
	EnteredPrompts map[string]map[string]string `json:"entered_prompts,omitempty"`
	// Requests is what the upgraded deployment's pods request, as counted
	// at review (nil: not counted); confirming checks it against the
	// team's quotas again.
	Requests    *requests.Totals `json:"requests,omitempty"`
	Fingerprint string           `json:"fingerprint"`
	Expires     time.Time        `json:"expires"`
}

// Review plans op once, dry-runs the plan and returns what it would change
// with a sealed token that carries the plan to ConfirmUpgrade. Bad inputs
// are an *InvalidError; a failed dry run is said in Review.DryRunError.
func (s *Service) Review(ctx context.Context, op *Upgrade) (*Review, error) {
	var row db.Deployment
	var dep *Deployment
	if err := s.liveDeployment(ctx, op.Name, &row, &dep); err != nil {
		return nil, err
	}
	p, err := op.check(ctx, s, row, dep)
	if err != nil {
		return nil, err
	}
	r := &Review{
		Deployment: dep, FromDriverVersion: dep.DriverVersion, DriverVersion: p.to.Spec.Version,
		FromAppVersion: dep.AppVersion, AppVersion: p.appVersion,
		Changes: p.changes, Prompts: p.prompts.values(p.hookActions), Requests: p.requests,
	}
	var pending *pendingRelease
	if r.Resources, err = s.dryRunUpgrade(ctx, p); errors.As(err, &pending) {
		r.RecoversFirst = pending.Error()
	} else if err != nil {
		r.DryRunError = styrmin.ErrorMessage(err)
		errors.As(err, &r.Refused)
	}
	p.hideSecrets(r)
	rt := reviewToken{Name: dep.Name, By: op.By, Requests: p.after(), Fingerprint: fingerprint(row), Expires: time.Now().Add(ReviewTTL)}
	rt.Inputs, rt.Secrets = p.task()
	rt.Entered, rt.EnteredPrompts = p.entered(op)
	plain, err := json.Marshal(rt)
	if err != nil {
		return nil, fmt.Errorf("deployment: review of %s: %w", op.Name, err)
	}
	r.Token = base64.RawURLEncoding.EncodeToString(s.box.Seal(plain, reviewTokens))
	return r, nil
}

// hideSecrets redacts, in the review's diffs and dry-run error, the
// deployment's secret values before and after the upgrade: a chart may
// render a secret parameter anywhere (a ConfigMap, an env value), and only
// Secrets are masked by the diff itself.
func (p *upgradePlan) hideSecrets(r *Review) {
	red := redact.New(append(secretList(p.current.Secrets), secretList(p.next.Secrets)...)...)
	r.DryRunError = red.String(r.DryRunError)
	for i := range r.Resources {
		r.Resources[i].Diff = red.String(r.Resources[i].Diff)
	}
}

// entered is the text of op's plain form fields (none for JSON values).
func (p *upgradePlan) entered(op *Upgrade) (map[string]string, map[string]map[string]string) {
	var params map[string]string
	if form, ok := op.Parameters.(FormInput); ok {
		params = plainText(p.to.Spec.Parameters, form)
	}
	prompts := map[string]map[string]string{}
	if form, ok := op.Prompts.(FormPrompts); ok {
		for _, a := range p.hookActions {
			prompts[a.Name] = plainText(a.Prompts, form[a.Name])
		}
	}
	return params, prompts
}

// dryRunUpgrade renders the upgrade against the cluster and compares it with
// the release's current manifest.
func (s *Service) dryRunUpgrade(ctx context.Context, p *upgradePlan) ([]release.ResourceDiff, error) {
	cluster, err := s.NeedCluster()
	if err != nil {
		return nil, err
	}
	current, err := cluster.Releases.Status(ctx, p.dep.Namespace, p.dep.Name)
	if err != nil {
		return nil, err
	}
	if current.Status.Pending() {
		return nil, &pendingRelease{name: p.dep.Name, last: current.Revision}
	}
	values, err := release.Values(ctx, p.to, p.next.All(), p.appVersion, p.dep.Namespace, p.dep.Name)
	if err != nil {
		return nil, err
	}
	owner, err := s.ReleaseOwner(ctx, p.dep.ID)
	if err != nil {
		return nil, err
	}
	check, err := s.PermissionCheck(ctx, p.dep.Driver, p.to.Spec.Version, p.dep.Namespace)
	if err != nil {
		return nil, err
	}
	// The dry run (and its `lookup`) acts as the namespace's deployer, or its
	// reviewer in a process that works no task (ClusterOptions.ReviewOnly),
	// which the install made: the web pods that run reviews may not make them.
	planned, err := cluster.Releases.Upgrade(ctx, release.UpgradeOptions{Namespace: p.dep.Namespace, Name: p.dep.Name, Owner: owner, Chart: p.bundle.Chart, Values: values, DryRun: true, Check: check})
	if styrmin.ErrorCode(err) == styrmin.EINTERNAL {
		// Helm's own error (the chart does not render, the API server
		// refuses a manifest) is what the reviewer needs to see.
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Message: "Helm's dry run of the upgrade failed: " + err.Error(), Err: err}
	}
	if err != nil {
		return nil, err
	}
	return release.DiffManifests(current.Manifest, planned.Manifest), nil
}

// pendingRelease is the dry run's answer for a release that an earlier
// operation left pending, on which Helm dry-runs nothing: the upgrade
// recovers it first (taskRun.recoverPending).
type pendingRelease struct {
	name string
	last release.Revision
}

// Error says what the upgrade will do first.
func (p *pendingRelease) Error() string {
	return fmt.Sprintf("Release %s was left %s at revision %d by an operation that did not finish (the cluster or Styrmin stopped during it). "+
		"The upgrade recovers it first, as Styrmin does after a crash: it marks that revision failed and, after an upgrade or a rollback, "+
		"rolls the release back to its last deployed revision. Until then no dry run can show what the upgrade changes.",
		p.name, p.last.Status, p.last.Number)
}

// fingerprint identifies what a review was made against: a change of the
// deployment's versions or values since makes the review stale.
func fingerprint(row db.Deployment) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00", row.ID, row.DriverVersion, row.AppVersion)
	h.Write(row.Parameters)
	h.Write(row.Secrets)
	return hex.EncodeToString(h.Sum(nil))
}

// openReview opens a review token given back by a user.
func (s *Service) openReview(token, by string) (*reviewToken, error) {
	sealed, err := base64.RawURLEncoding.DecodeString(token)
	var rt reviewToken
	if err == nil {
		var plain []byte
		if plain, err = s.box.Open(sealed, reviewTokens); err == nil {
			err = json.Unmarshal(plain, &rt)
		}
	}
	switch {
	case err != nil:
		return nil, styrmin.Errorf(styrmin.EINVALID, "This review is not valid; start the upgrade again.")
	case rt.By != by:
		return nil, styrmin.Errorf(styrmin.EINVALID, "This review was made by another user; review the upgrade yourself.")
	case time.Now().After(rt.Expires):
		return nil, styrmin.Errorf(styrmin.EINVALID, "This review is older than %s; review the upgrade again.", ReviewTTL)
	}
	return &rt, nil
}

// ConfirmUpgrade queues the upgrade a review planned (Review.Token), as it
// was planned, if By made the review, it has not expired and the deployment
// has not changed since (ECONFLICT).
type ConfirmUpgrade struct {
	Token, By string
}

// plan opens the review and checks the deployment's fingerprint.
func (c ConfirmUpgrade) plan(ctx context.Context, s *Service) (plan, error) {
	rt, err := s.openReview(c.Token, c.By)
	if err != nil {
		return nil, err
	}
	var row db.Deployment
	var dep *Deployment
	if err := s.liveDeployment(ctx, rt.Name, &row, &dep); err != nil {
		return nil, err
	}
	if fingerprint(row) != rt.Fingerprint {
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "Deployment %s changed since this review; review the upgrade again.", dep.Name)
	}
	return &taskPlan{row: row, kind: KindUpgrade, inputs: rt.Inputs, secrets: rt.Secrets.sealable(), by: c.By,
		requests: rt.Requests, countsRequests: true}, nil
}
