package deployment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/teams"
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
// (empty: the current one). Only the current driver version and the newer
// ones its team may deploy may be chosen; another is an EINVALID error
// naming FieldDriverVersion.
func (s *Service) UpgradeForm(ctx context.Context, name, driverVersion string) (*UpgradeForm, error) {
	t, err := s.liveUpgradeTarget(ctx, name, driverVersion, "")
	if err != nil {
		return nil, err
	}
	if err := s.offerTeamVersions(ctx, t); err != nil {
		return nil, err
	}
	return t.form(FormText(t.to.Spec.Parameters, &t.current), promptText(t.hookActions)), nil
}

// offerTeamVersions keeps, of the target's driver versions, the current one
// and those the deployment's team may deploy (each version's labels count:
// they may differ from another's), so the form offers no version the plan
// refuses. A chosen version the team may not deploy is the plan's EINVALID
// error (checkUpgradeDriver).
func (s *Service) offerTeamVersions(ctx context.Context, t *upgradeTarget) error {
	team, err := s.q.GetTeam(ctx, t.row.TeamID)
	if err != nil {
		return fmt.Errorf("deployment: read the team's policy: %w", db.Classify(err))
	}
	var errs fieldErrors
	if t.to.Spec.Version != t.dep.DriverVersion {
		refuseTeamDriver(team, t.to, &errs)
	}
	if err := errs.err(); err != nil {
		return err
	}
	policy := teams.PolicyOf(team)
	if policy.Drivers == nil {
		return nil
	}
	var offered []string
	for _, v := range t.driverVersions {
		if v != t.dep.DriverVersion {
			spec, err := s.catalog.Spec(ctx, t.dep.Driver, v)
			if err != nil {
				return err
			}
			if !policy.AllowsDriver(spec.Driver.Metadata.Name, spec.Driver.Metadata.Labels) {
				continue
			}
		}
		offered = append(offered, v)
	}
	t.driverVersions = offered
	return nil
}

// form is the upgrade form of the target with the text of its parameter and
// prompt fields.
func (t *upgradeTarget) form(text map[string]string, prompts map[string]map[string]string) *UpgradeForm {
	f := &UpgradeForm{
		Form: Form{Driver: t.to, DriverVersions: t.driverVersions, AppVersion: t.appVersion,
			AppVersions: []string{t.dep.AppVersion}, Values: text, HookActions: t.hookActions, Prompts: prompts},
		Deployment: t.dep, DriverVersion: t.to.Spec.Version, Removed: t.removed,
	}
	if v := chartAppVersion(t.bundle); v != "" && v != t.dep.AppVersion {
		f.AppVersions = append(f.AppVersions, v)
	}
	return f
}

// EditUpgrade returns the upgrade form filled in as the reviewed form was
// (secret fields blank: a blank secret keeps its current value; a secret
// prompt must be entered again).
func (s *Service) EditUpgrade(ctx context.Context, token, by string) (*UpgradeForm, error) {
	rt, err := s.openReview(token, by)
	if err != nil {
		return nil, err
	}
	t, err := s.liveUpgradeTarget(ctx, rt.Name, rt.Inputs.DriverVersion, rt.Inputs.AppVersion)
	if err != nil {
		return nil, err
	}
	if err := s.offerTeamVersions(ctx, t); err != nil {
		return nil, err
	}
	prompts := map[string]map[string]string{}
	for _, a := range t.hookActions {
		prompts[a.Name] = plainText(a.Prompts, rt.EnteredPrompts[a.Name])
	}
	return t.form(plainText(t.to.Spec.Parameters, rt.Entered), prompts), nil
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

// upgradeTarget is what an upgrade of a deployment to a driver version and
// an application version involves, before any value is read.
type upgradeTarget struct {
	row            db.Deployment
	dep            *Deployment
	from, to       *drivers.Driver
	bundle         *drivers.Bundle
	driverVersions []string
	appVersion     string
	current        Values
	removed        []string
	// hookActions are the target version's upgrade hook actions that ask
	// prompts.
	hookActions []*drivers.Action
}

// upgradeHooks are the hooks an upgrade task runs.
var upgradeHooks = []drivers.Hook{drivers.HookPreUpgrade, drivers.HookPostUpgrade}

// liveUpgradeTarget is the upgradeTarget of the named live deployment.
func (s *Service) liveUpgradeTarget(ctx context.Context, name, driverVersion, appVersion string) (*upgradeTarget, error) {
	var row db.Deployment
	var dep *Deployment
	if err := s.liveDeployment(ctx, name, &row, &dep); err != nil {
		return nil, err
	}
	return s.upgradeTarget(ctx, row, dep, driverVersion, appVersion)
}

// upgradeTarget reads what an upgrade of the deployment row to driverVersion
// and appVersion (empty: the current ones) involves. Only the current and
// newer driver versions may be chosen; another is an EINVALID error naming
// FieldDriverVersion.
func (s *Service) upgradeTarget(ctx context.Context, row db.Deployment, dep *Deployment, driverVersion, appVersion string) (*upgradeTarget, error) {
	t := &upgradeTarget{row: row, dep: dep}
	versions, err := s.catalog.Versions(ctx, dep.Driver)
	if err != nil {
		return nil, err
	}
	// Versions are newest first: the current one and those before it may be chosen.
	if i := slices.Index(versions, dep.DriverVersion); i >= 0 {
		versions = versions[:i+1]
	}
	t.driverVersions = versions
	if driverVersion == "" {
		driverVersion = dep.DriverVersion
	}
	if !slices.Contains(versions, driverVersion) {
		var errs fieldErrors
		errs.add(Field{Kind: FieldDriverVersion}, fmt.Sprintf("choose one of %s: a deployment moves to the same or a newer driver version", strings.Join(versions, ", ")))
		return nil, errs.err()
	}
	from, err := s.catalog.Spec(ctx, dep.Driver, dep.DriverVersion)
	if err != nil {
		return nil, err
	}
	t.from = from.Driver
	if t.bundle, err = s.catalog.Bundle(ctx, dep.Driver, driverVersion); err != nil {
		return nil, err
	}
	t.to = t.bundle.Driver
	t.hookActions = hookActions(t.to, upgradeHooks...)
	if t.current, err = s.StoredValues(t.to.Spec.Parameters, row.Parameters, row.Secrets, DeploymentSecretsAt(row.ID)); err != nil {
		return nil, err
	}
	for _, old := range t.from.Spec.Parameters {
		if !slices.ContainsFunc(t.to.Spec.Parameters, func(n drivers.Parameter) bool { return n.Name == old.Name }) {
			t.removed = append(t.removed, old.Name)
		}
	}
	t.appVersion = strings.TrimSpace(appVersion)
	if t.appVersion == "" {
		t.appVersion = dep.AppVersion
	}
	return t, nil
}

// liveDeployment reads the named deployment, refusing a deleted one.
func (s *Service) liveDeployment(ctx context.Context, name string, row *db.Deployment, dep **Deployment) error {
	r, err := s.q.GetLiveDeployment(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, gerr := s.Get(ctx, name); gerr == nil {
			return styrmin.Errorf(styrmin.ECONFLICT, "Deployment %s was deleted; it stays in the history only.", name)
		}
		return NoSuchDeployment(name)
	}
	if err != nil {
		return fmt.Errorf("deployment: get %s: %w", name, err)
	}
	d, err := toDeployment(r)
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
	return s.driverSpec(ctx, *dep)
}
