package deployment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/requests"
	"github.com/styrmin/styrmin/teams"
)

// Install records a new deployment of a driver version and queues its
// install task.
type Install struct {
	Driver, DriverVersion string
	// Name is the deployment's name and Helm release name.
	Name string
	// Namespace defaults to Name.
	Namespace string
	// Team is the name of the team the deployment belongs to; empty for
	// the one team of TeamsAllowed when it holds one (the team of a token
	// narrowed to it, the one team a member operates), else the team
	// "default".
	Team string
	// TeamsAllowed are the teams the installer may deploy into (those where
	// their role is operator or more: teams.Store.Deployable); nil for
	// every team.
	TeamsAllowed []int64
	// Admin is set when the installer is a global admin: they may deploy
	// into a namespace that another team's deployments hold.
	Admin      bool
	AppVersion string
	// Parameters are the deployment's values; Prompts the prompts of the
	// install's hook actions.
	Parameters Input
	Prompts    PromptsInput
	By         string
}

// installPlan is a checked install: the deployment to record and its task.
type installPlan struct {
	op      Install
	team    int64
	values  Values
	prompts hookPrompts
	// requests is what the deployment's pods request; nil when the chart
	// did not render offline (and the team has no CPU or memory quota).
	requests *requests.Totals
}

// plan checks the driver version, the names, the team and its policy (the
// driver, the namespace against the team's or the global patterns, a
// namespace held by another team), the application version, the values and
// the prompts, then renders the chart offline with the values: what it
// creates must be approved for the driver version, and what its pods
// request is counted for the team's CPU and memory quotas.
func (o *Install) plan(ctx context.Context, s *Service) (plan, error) {
	// A refused install is recorded under the name it asked for.
	audit.NameTarget(ctx, o.Name, nil)
	var errs fieldErrors
	version, err := s.catalog.Spec(ctx, o.Driver, o.DriverVersion)
	if styrmin.ErrorCode(err) == styrmin.ENOTFOUND {
		errs.add(Field{Kind: FieldDriverVersion}, fmt.Sprintf("driver %s has no version %q", o.Driver, o.DriverVersion))
		return nil, errs.err()
	}
	if err != nil {
		return nil, err
	}
	d := version.Driver
	p := &installPlan{op: *o}
	in := &p.op
	in.Name, in.Namespace, in.AppVersion = strings.TrimSpace(in.Name), strings.TrimSpace(in.Namespace), strings.TrimSpace(in.AppVersion)
	if in.Namespace == "" {
		in.Namespace = in.Name
	}
	if err := checkName("name", in.Name, MaxNameLength); err != nil {
		errs.add(Field{Kind: FieldName}, err.Error())
	}
	if err := checkName("namespace", in.Namespace, 63); err != nil && !errs.has(FieldName) {
		errs.add(Field{Kind: FieldNamespace}, err.Error())
	}
	team, err := s.installTeam(ctx, in, &errs)
	if err != nil {
		return nil, err
	}
	if team != nil {
		p.team = team.ID
		if policy := teams.PolicyOf(*team); !policy.AllowsDriver(d.Metadata.Name, d.Metadata.Labels) {
			errs.add(Field{Kind: FieldTeam}, fmt.Sprintf("the team %s may not deploy the driver %s: it may deploy %s; choose another team, or ask an admin to allow the driver for the team",
				team.Name, d.Metadata.Name, policy.DriversAllowed()))
		}
	}
	if !errs.has(FieldName) && !errs.has(FieldNamespace) {
		if err := s.checkNamespace(ctx, in, team, &errs); err != nil {
			return nil, err
		}
	}
	if in.AppVersion == "" {
		if in.AppVersion, err = s.defaultAppVersion(ctx, o.Driver, o.DriverVersion); err != nil {
			return nil, err
		}
	}
	if err := d.SupportsVersion(in.AppVersion); err != nil {
		errs.add(Field{Kind: FieldAppVersion}, err.Error())
	}
	values, bad, shape := readInput(in.Parameters, d.Spec.Parameters, nil)
	errs.addRead(bad, shape, ParamField)
	p.prompts = readHookPrompts(hookActions(d, installHooks...), in.Prompts, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	p.values = values
	b, err := s.catalog.Bundle(ctx, d.Metadata.Name, d.Spec.Version)
	if err != nil {
		return nil, err
	}
	manifest, renderErr, err := s.renderOffline(ctx, d, b.Chart, values, in.AppVersion, in.Namespace, in.Name, false)
	if err != nil {
		return nil, err
	}
	if renderErr == nil {
		if err := s.checkPermissions(ctx, d, in.Namespace, manifest); err != nil {
			return nil, err
		}
	}
	if p.requests, err = countRequests(*team, manifest, renderErr); err != nil {
		return nil, err
	}
	return p, nil
}

// queue records the deployment with its sealed secrets and queues its
// install task; a name taken is an InvalidError naming FieldName, a team at
// its deployment quota one naming FieldTeam, past its CPU or memory quota
// one naming FieldParameters.
func (p *installPlan) queue(ctx context.Context, s *Service, tx pgx.Tx) (*Queued, error) {
	q, in := s.q.WithTx(tx), &p.op
	team, err := checkQuota(ctx, q, p.team)
	if err != nil {
		return nil, err
	}
	if err := lockedRequests(ctx, q, team, 0, p.requests, nil); err != nil {
		return nil, err
	}
	var cpu, memory *int64
	if p.requests != nil {
		cpu, memory = &p.requests.CPUMillis, &p.requests.MemoryBytes
	}
	plain, err := MarshalPlain(p.values)
	if err != nil {
		return nil, err
	}
	dep, err := q.InsertDeployment(ctx, db.InsertDeploymentParams{
		Name: in.Name, Namespace: in.Namespace, DriverName: in.Driver, DriverVersion: in.DriverVersion,
		AppVersion: in.AppVersion, Parameters: plain, CreatedBy: in.By, TeamID: &p.team,
		RequestedCpuMillis: cpu, RequestedMemoryBytes: memory,
	})
	if db.IsUniqueViolation(err) {
		var errs fieldErrors
		errs.add(Field{Kind: FieldName}, fmt.Sprintf("a deployment named %s exists; choose another name or delete it first", in.Name))
		return nil, errs.err()
	}
	if err != nil {
		return nil, err
	}
	sealed, err := s.box.SealValues(p.values.Secrets, DeploymentSecretsAt(dep.ID))
	if err != nil {
		return nil, err
	}
	if err := q.SetDeploymentSecrets(ctx, db.SetDeploymentSecretsParams{ID: dep.ID, Secrets: sealed, SecretNames: SecretNames(p.values.Secrets)}); err != nil {
		return nil, err
	}
	inputs := InstallInputs{DriverVersion: in.DriverVersion, AppVersion: in.AppVersion, Namespace: in.Namespace,
		Parameters: p.values.Plain, Prompts: p.prompts.Plain}
	secretInputs := TaskSecretInputs{Prompts: p.prompts.Secrets}.sealable()
	task, err := s.queueTask(ctx, tx, dep.ID, KindInstall, inputs, secretInputs, in.By)
	if err != nil {
		return nil, err
	}
	return &Queued{TaskID: task.ID, Deployment: dep.Name}, nil
}

// checkQuota refuses an install into a team that holds as many live
// deployments as its policy allows, and returns the team's row. It holds
// that row until the transaction ends: two installs into one team take
// their turn, and the second counts the first.
func checkQuota(ctx context.Context, q *db.Queries, teamID int64) (db.Team, error) {
	team, err := q.LockTeam(ctx, teamID)
	if err != nil {
		return db.Team{}, err
	}
	if team.MaxDeployments == nil {
		return team, nil
	}
	held, err := q.CountLiveTeamDeployments(ctx, teamID)
	if err != nil {
		return db.Team{}, err
	}
	if held < *team.MaxDeployments {
		return team, nil
	}
	var errs fieldErrors
	errs.add(Field{Kind: FieldTeam}, fmt.Sprintf("the team %s holds %d live deployments, as many as its quota allows (%d); delete one first, choose another team, or ask an admin to raise the quota",
		team.Name, held, *team.MaxDeployments))
	return db.Team{}, errs.err()
}

// what names the install.
func (p *installPlan) what() string { return "install " + p.op.Name }

// installTeam returns the team an install names (none: the one team it may
// deploy into, else the team "default"), or adds why it cannot deploy there
// to errs: no such team (nil), or one the installer may not deploy into
// (told as such: they may know the team exists, as its member or from the
// form's choices).
func (s *Service) installTeam(ctx context.Context, in *Install, errs *fieldErrors) (*db.Team, error) {
	in.Team = strings.TrimSpace(in.Team)
	var team db.Team
	var err error
	if in.Team == "" && len(in.TeamsAllowed) == 1 {
		team, err = s.q.GetTeam(ctx, in.TeamsAllowed[0])
		in.Team = team.Name
	} else {
		in.Team = cmp.Or(in.Team, teams.Default)
		team, err = s.q.GetTeamByName(ctx, in.Team)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		errs.add(Field{Kind: FieldTeam}, fmt.Sprintf("there is no team named %q", in.Team))
		return nil, nil
	}
	if err != nil {
		return nil, db.Classify(err)
	}
	if in.TeamsAllowed != nil && !slices.Contains(in.TeamsAllowed, team.ID) {
		errs.add(Field{Kind: FieldTeam}, fmt.Sprintf("you may not deploy into the team %s: that needs the operator role in it; choose one of your teams or ask an admin", in.Team))
	}
	return &team, nil
}

// checkNamespace adds to errs why an install may not go into its
// namespace: the team's namespaces (team nil: the global policy's
// patterns) refuse it, or a live deployment of another team is there
// (unless the installer is a global admin).
func (s *Service) checkNamespace(ctx context.Context, in *Install, team *db.Team, errs *fieldErrors) error {
	global, err := s.NamespacePolicy(ctx)
	if err != nil {
		return err
	}
	if why := s.namespaceRefusal(global, in.Namespace, team); why != "" {
		errs.add(Field{Kind: FieldNamespace}, why)
		return nil
	}
	if team == nil || in.Admin {
		return nil
	}
	holder, err := s.q.NamespaceHolderTeam(ctx, db.NamespaceHolderTeamParams{Namespace: in.Namespace, TeamID: team.ID})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return db.Classify(err)
	}
	errs.add(Field{Kind: FieldNamespace}, fmt.Sprintf("namespace %s belongs to team %s's deployments; choose a namespace of your team", in.Namespace, holder))
	return nil
}
