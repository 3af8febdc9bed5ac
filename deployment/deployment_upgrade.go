package deployment

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/release"
)

// UpgradeForm is an upgrade form: the deployment's current values, or the
// chosen driver version's defaults for parameters it adds.
type UpgradeForm struct {
	Form
	Deployment *Deployment
	// DriverVersion is the chosen driver version.
	DriverVersion string
	// Removed are the parameters the chosen driver version no longer has.
	Removed []string
}

// UpgradeForm returns the upgrade form of a deployment, for driverVersion
// (empty: the current one). Only the current and newer driver versions may be chosen.
func (s *Service) UpgradeForm(ctx context.Context, name, driverVersion string) (*UpgradeForm, error) {
	p, err := s.planUpgrade(ctx, UpgradeRequest{Name: name, DriverVersion: driverVersion}, false)
	if err != nil {
		return nil, err
	}
	return p.form(FormText(p.to.Spec.Parameters, &p.current), promptText(p.hookActions)), nil
}

// form is the upgrade form of the plan with the text of its parameter and
// prompt fields.
func (p *upgradePlan) form(text map[string]string, prompts map[string]map[string]string) *UpgradeForm {
	f := &UpgradeForm{
		Form: Form{Driver: p.to, DriverVersions: p.driverVersions, AppVersion: p.appVersion,
			AppVersions: []string{p.dep.AppVersion}, Values: text, HookActions: p.hookActions, Prompts: prompts},
		Deployment: p.dep, DriverVersion: p.to.Spec.Version, Removed: p.removed,
	}
	if v := chartAppVersion(p.bundle); v != "" && v != p.dep.AppVersion {
		f.AppVersions = append(f.AppVersions, v)
	}
	return f
}

// UpgradeRequest is a filled-in upgrade form.
type UpgradeRequest struct {
	Name string
	// DriverVersion is the driver version to move to (empty: the current one).
	DriverVersion string
	// AppVersion is the application version to move to (empty: the current one).
	AppVersion string
	// Parameters holds each parameter field's text by parameter name; a
	// blank secret keeps its value.
	Parameters map[string]string
	// Prompts holds the prompt fields of the hook actions of the target
	// driver version's upgrade, by action then prompt.
	Prompts map[string]map[string]string
	By      string
}

// upgradePlan is a checked upgrade request with everything it involves.
type upgradePlan struct {
	row            db.Deployment
	dep            *Deployment
	from, to       *drivers.Driver
	bundle         *drivers.Bundle
	driverVersions []string
	appVersion     string
	current, next  Values
	removed        []string
	// hookActions are the target version's upgrade hook actions that ask
	// prompts; prompts their values (read with checkValues).
	hookActions []*drivers.Action
	prompts     hookPrompts
}

// upgradeHooks are the hooks an upgrade task runs.
var upgradeHooks = []drivers.Hook{drivers.HookPreUpgrade, drivers.HookPostUpgrade}

// planUpgrade checks an upgrade request; with checkValues it also reads and
// checks the parameter fields (an EINVALID error names each bad field).
func (s *Service) planUpgrade(ctx context.Context, req UpgradeRequest, checkValues bool) (*upgradePlan, error) {
	p := &upgradePlan{}
	if err := s.liveDeployment(ctx, req.Name, &p.row, &p.dep); err != nil {
		return nil, err
	}
	versions, err := s.catalog.Versions(ctx, p.dep.Driver)
	if err != nil {
		return nil, err
	}
	// Versions are newest first: the current one and those before it may be chosen.
	if i := slices.Index(versions, p.dep.DriverVersion); i >= 0 {
		versions = versions[:i+1]
	}
	p.driverVersions = versions
	if req.DriverVersion == "" {
		req.DriverVersion = p.dep.DriverVersion
	}
	if !slices.Contains(versions, req.DriverVersion) {
		return nil, invalid(map[string]string{"driver_version": fmt.Sprintf("choose one of %s: a deployment moves to the same or a newer driver version", strings.Join(versions, ", "))})
	}
	from, err := s.catalog.Get(ctx, p.dep.Driver, p.dep.DriverVersion)
	if err != nil {
		return nil, err
	}
	p.from = from.Driver
	if p.bundle, err = s.catalog.Bundle(ctx, p.dep.Driver, req.DriverVersion); err != nil {
		return nil, err
	}
	p.to = p.bundle.Driver
	p.hookActions = hookActions(p.to, upgradeHooks...)
	if p.current, err = s.storedValues(p.to.Spec.Parameters, p.row.Parameters, p.row.Secrets, p.row.ID); err != nil {
		return nil, err
	}
	for _, old := range p.from.Spec.Parameters {
		if !slices.ContainsFunc(p.to.Spec.Parameters, func(n drivers.Parameter) bool { return n.Name == old.Name }) {
			p.removed = append(p.removed, old.Name)
		}
	}
	p.appVersion = strings.TrimSpace(req.AppVersion)
	if p.appVersion == "" {
		p.appVersion = p.dep.AppVersion
	}
	if !checkValues {
		return p, nil
	}
	fields := map[string]string{}
	if err := p.to.SupportsVersion(p.appVersion); err != nil {
		fields["app_version"] = err.Error()
	}
	next := readFields(p.to.Spec.Parameters, req.Parameters, &p.current, fields, paramField)
	p.prompts = readPrompts(p.hookActions, req.Prompts, fields)
	if len(fields) > 0 {
		return nil, invalid(fields)
	}
	p.next = next
	return p, nil
}

// liveDeployment reads the named deployment, refusing a deleted one.
func (s *Service) liveDeployment(ctx context.Context, name string, row *db.Deployment, dep **Deployment) error {
	r, err := s.q.GetLiveDeployment(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, gerr := s.Get(ctx, name); gerr == nil {
			return styrmin.Errorf(styrmin.ECONFLICT, "Deployment %s was deleted; it stays in the history only.", name)
		}
		return styrmin.Errorf(styrmin.ENOTFOUND, "There is no deployment named %q.", name)
	}
	if err != nil {
		return fmt.Errorf("deployment: get %s: %w", name, err)
	}
	d, err := s.toDeployment(r)
	if err != nil {
		return err
	}
	*row, *dep = r, d
	return nil
}

// liveDriver reads the named live deployment (see liveDeployment) and the
// spec of its driver version.
func (s *Service) liveDriver(ctx context.Context, name string, row *db.Deployment, dep **Deployment) (*drivers.Driver, error) {
	if err := s.liveDeployment(ctx, name, row, dep); err != nil {
		return nil, err
	}
	v, err := s.catalog.Get(ctx, (*dep).Driver, (*dep).DriverVersion)
	if err != nil {
		return nil, err
	}
	return v.Driver, nil
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
	// Token carries the request, sealed, to Confirm (or back to the form):
	// secret values never appear in a page.
	Token string
}

// ReviewTTL is how long a review may be confirmed.
const ReviewTTL = 30 * time.Minute

// reviewToken is the sealed content of Review.Token.
type reviewToken struct {
	Request     UpgradeRequest `json:"request"`
	Fingerprint string         `json:"fingerprint"`
	Expires     time.Time      `json:"expires"`
}

// reviewLabel binds review tokens to their purpose.
const reviewLabel = "styrmin upgrade review"

// ReviewUpgrade checks an upgrade request and dry-runs it. Bad fields are an
// EINVALID error, as for Install.
func (s *Service) ReviewUpgrade(ctx context.Context, req UpgradeRequest) (*Review, error) {
	p, err := s.planUpgrade(ctx, req, true)
	if err != nil {
		return nil, err
	}
	r := &Review{
		Deployment: p.dep, FromDriverVersion: p.dep.DriverVersion, DriverVersion: p.to.Spec.Version,
		FromAppVersion: p.dep.AppVersion, AppVersion: p.appVersion,
		Changes: Compare(p.to.Spec.Parameters, p.current, p.next),
		Prompts: p.prompts.values(p.hookActions),
	}
	if r.Resources, err = s.dryRunUpgrade(ctx, p); err != nil {
		r.DryRunError = styrmin.ErrorMessage(err)
	}
	req.DriverVersion, req.AppVersion = p.to.Spec.Version, p.appVersion
	plain, err := json.Marshal(reviewToken{Request: req, Fingerprint: fingerprint(p.row), Expires: time.Now().Add(ReviewTTL)})
	if err != nil {
		return nil, fmt.Errorf("deployment: review of %s: %w", req.Name, err)
	}
	r.Token = base64.RawURLEncoding.EncodeToString(s.box.Seal(plain, reviewLabel))
	return r, nil
}

// dryRunUpgrade renders the upgrade against the cluster and compares it with
// the release's current manifest.
func (s *Service) dryRunUpgrade(ctx context.Context, p *upgradePlan) ([]release.ResourceDiff, error) {
	cluster, err := s.needCluster()
	if err != nil {
		return nil, err
	}
	current, err := cluster.Releases.Status(ctx, p.dep.Namespace, p.dep.Name)
	if err != nil {
		return nil, err
	}
	chart, err := cluster.Charts.Load(ctx, p.bundle)
	if err != nil {
		return nil, err
	}
	values, err := release.Values(ctx, p.to, p.next.All(), p.appVersion, p.dep.Namespace, p.dep.Name)
	if err != nil {
		return nil, err
	}
	planned, err := cluster.Releases.Upgrade(ctx, release.UpgradeOptions{Namespace: p.dep.Namespace, Name: p.dep.Name, Chart: chart, Values: values, DryRun: true})
	if err != nil {
		return nil, err
	}
	return release.DiffManifests(current.Manifest, planned.Manifest), nil
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
		if plain, err = s.box.Open(sealed, reviewLabel); err == nil {
			err = json.Unmarshal(plain, &rt)
		}
	}
	switch {
	case err != nil:
		return nil, styrmin.Errorf(styrmin.EINVALID, "This review is not valid; start the upgrade again.")
	case rt.Request.By != by:
		return nil, styrmin.Errorf(styrmin.EINVALID, "This review was made by another user; review the upgrade yourself.")
	case time.Now().After(rt.Expires):
		return nil, styrmin.Errorf(styrmin.EINVALID, "This review is older than %s; review the upgrade again.", ReviewTTL)
	}
	return &rt, nil
}

// EditUpgrade returns the upgrade form filled in as the reviewed request was
// (secret fields blank: a blank secret keeps its current value; a secret
// prompt must be entered again).
func (s *Service) EditUpgrade(ctx context.Context, token, by string) (*UpgradeForm, error) {
	rt, err := s.openReview(token, by)
	if err != nil {
		return nil, err
	}
	p, err := s.planUpgrade(ctx, rt.Request, false)
	if err != nil {
		return nil, err
	}
	prompts := map[string]map[string]string{}
	for _, a := range p.hookActions {
		prompts[a.Name] = plainText(a.Prompts, rt.Request.Prompts[a.Name])
	}
	return p.form(plainText(p.to.Spec.Parameters, rt.Request.Parameters), prompts), nil
}

// plainText is the entered text of the fields of params that are not secret.
func plainText(params []drivers.Parameter, entered map[string]string) map[string]string {
	text := map[string]string{}
	for _, param := range params {
		if v, ok := entered[param.Name]; ok && param.Type != drivers.TypeSecret {
			text[param.Name] = v
		}
	}
	return text
}

// upgradeInputs are an upgrade task's inputs (secrets travel sealed apart).
type upgradeInputs struct {
	FromDriverVersion string         `json:"from_driver_version"`
	DriverVersion     string         `json:"driver_version"`
	FromAppVersion    string         `json:"from_app_version"`
	AppVersion        string         `json:"app_version"`
	Parameters        map[string]any `json:"parameters"`
	// Changed names the parameters that change, secrets included.
	Changed []string `json:"changed"`
	// Prompts holds the plain prompt values of hook actions, by action.
	Prompts map[string]map[string]any `json:"prompts,omitempty"`
}

// Upgrade queues the upgrade that a review (its token) describes, if the
// deployment has not changed since and the request still holds.
func (s *Service) Upgrade(ctx context.Context, token, by string) (*Queued, error) {
	rt, err := s.openReview(token, by)
	if err != nil {
		return nil, err
	}
	p, err := s.planUpgrade(ctx, rt.Request, true)
	if err != nil {
		return nil, err
	}
	if fingerprint(p.row) != rt.Fingerprint {
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "Deployment %s changed since this review; review the upgrade again.", p.dep.Name)
	}
	return s.queueUpgrade(ctx, p, by)
}

// queueUpgrade queues the task of a checked upgrade plan.
func (s *Service) queueUpgrade(ctx context.Context, p *upgradePlan, by string) (*Queued, error) {
	inputs := upgradeInputs{
		FromDriverVersion: p.dep.DriverVersion, DriverVersion: p.to.Spec.Version,
		FromAppVersion: p.dep.AppVersion, AppVersion: p.appVersion, Parameters: p.next.Plain,
		Prompts: p.prompts.Plain,
	}
	secretInputs := taskSecrets{Params: p.next.Secrets, Prompts: p.prompts.Secrets}.sealable()
	for _, c := range Compare(p.to.Spec.Parameters, p.current, p.next) {
		if c.Kind != release.Unchanged {
			inputs.Changed = append(inputs.Changed, c.Name)
		}
	}
	var task db.Task
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		task, err = s.queueTask(ctx, tx, p.row.ID, KindUpgrade, inputs, secretInputs, by)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("deployment: upgrade %s: %w", p.dep.Name, err)
	}
	return &Queued{TaskID: task.ID, Deployment: p.dep.Name}, nil
}
