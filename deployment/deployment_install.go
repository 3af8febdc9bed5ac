package deployment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
)

// Form is what an install or upgrade form starts with.
type Form struct {
	// Driver is the chosen driver version's spec (parameters, constraint).
	Driver *drivers.Driver
	// DriverVersions are the versions that may be chosen, newest first.
	DriverVersions []string
	// AppVersion is the application version the form proposes.
	AppVersion string
	// AppVersions are versions to suggest (the chart's, the current one).
	AppVersions []string
	// Values is the text each parameter's field starts with (no secrets).
	Values map[string]string
	// HookActions are the actions of the task's hooks that ask prompts, a
	// section each, in declaration order.
	HookActions []*drivers.Action
	// Prompts is the text each of their prompt fields starts with, by action
	// then prompt (no secrets).
	Prompts map[string]map[string]string
}

// InstallForm returns the install form of a driver version; an empty version
// means the newest.
func (s *Service) InstallForm(ctx context.Context, driver, version string) (*Form, error) {
	versions, err := s.catalog.Versions(ctx, driver)
	if err != nil {
		return nil, err
	}
	if version == "" {
		version = versions[0]
	}
	b, err := s.catalog.Bundle(ctx, driver, version)
	if err != nil {
		return nil, err
	}
	f := &Form{Driver: b.Driver, DriverVersions: versions, Values: FormText(b.Driver.Spec.Parameters, nil)}
	f.HookActions = hookActions(b.Driver, installHooks...)
	f.Prompts = promptText(f.HookActions)
	if v := chartAppVersion(b); v != "" {
		f.AppVersion, f.AppVersions = v, []string{v}
	}
	return f, nil
}

// installHooks are the hooks an install task runs.
var installHooks = []drivers.Hook{drivers.HookPreInstall, drivers.HookPostInstall}

// chartAppVersion is the appVersion of a bundled chart, "" for a remote one.
func chartAppVersion(b *drivers.Bundle) string {
	if b.Chart == nil || b.Chart.Metadata == nil {
		return ""
	}
	return b.Chart.Metadata.AppVersion
}

// InstallRequest is a filled-in install form.
type InstallRequest struct {
	Driver, DriverVersion string
	// Name is the deployment's name and Helm release name.
	Name string
	// Namespace defaults to Name.
	Namespace  string
	AppVersion string
	// Parameters holds each parameter field's text by parameter name; an
	// unchecked boolean is absent.
	Parameters map[string]string
	// Prompts holds the prompt fields of the install's hook actions, by
	// action then prompt, as Parameters holds parameter fields.
	Prompts map[string]map[string]string
	// By is who asks.
	By string
}

// Queued names a task that was queued.
type Queued struct {
	TaskID     int64
	Deployment string
}

// installInputs are an install task's inputs (secrets travel sealed apart).
type installInputs struct {
	DriverVersion string         `json:"driver_version"`
	AppVersion    string         `json:"app_version"`
	Namespace     string         `json:"namespace"`
	Parameters    map[string]any `json:"parameters"`
	// Prompts holds the plain prompt values of hook actions, by action.
	Prompts map[string]map[string]any `json:"prompts,omitempty"`
}

// Install checks the request, records the deployment and queues its install
// task. Bad values are an EINVALID error with a message per field (name,
// namespace, driver_version, app_version, param.<name>,
// prompt.<action>.<prompt>).
func (s *Service) Install(ctx context.Context, req InstallRequest) (*Queued, error) {
	fields := map[string]string{}
	version, err := s.catalog.Get(ctx, req.Driver, req.DriverVersion)
	if styrmin.ErrorCode(err) == styrmin.ENOTFOUND {
		fields["driver_version"] = fmt.Sprintf("driver %s has no version %q", req.Driver, req.DriverVersion)
		return nil, invalid(fields)
	}
	if err != nil {
		return nil, err
	}
	d := version.Driver
	req.Name, req.Namespace, req.AppVersion = strings.TrimSpace(req.Name), strings.TrimSpace(req.Namespace), strings.TrimSpace(req.AppVersion)
	if req.Namespace == "" {
		req.Namespace = req.Name
	}
	if err := checkName("name", req.Name, MaxNameLength); err != nil {
		fields["name"] = err.Error()
	}
	if err := checkName("namespace", req.Namespace, 63); err != nil && fields["name"] == "" {
		fields["namespace"] = err.Error()
	}
	if err := d.SupportsVersion(req.AppVersion); err != nil {
		fields["app_version"] = err.Error()
	}
	values := readFields(d.Spec.Parameters, req.Parameters, nil, fields, paramField)
	prompts := readPrompts(hookActions(d, installHooks...), req.Prompts, fields)
	if len(fields) > 0 {
		return nil, invalid(fields)
	}

	var queued *Queued
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		plain, err := marshalPlain(values)
		if err != nil {
			return err
		}
		dep, err := q.InsertDeployment(ctx, db.InsertDeploymentParams{
			Name: req.Name, Namespace: req.Namespace, DriverName: req.Driver, DriverVersion: req.DriverVersion,
			AppVersion: req.AppVersion, Parameters: plain, CreatedBy: req.By,
		})
		if err != nil {
			return err
		}
		sealed, err := s.box.SealValues(values.Secrets, secretsLabel(dep.ID))
		if err != nil {
			return err
		}
		if err := q.SetDeploymentSecrets(ctx, db.SetDeploymentSecretsParams{ID: dep.ID, Secrets: sealed}); err != nil {
			return err
		}
		inputs := installInputs{DriverVersion: req.DriverVersion, AppVersion: req.AppVersion, Namespace: req.Namespace,
			Parameters: values.Plain, Prompts: prompts.Plain}
		secretInputs := taskSecrets{Prompts: prompts.Secrets}.sealable()
		task, err := s.queueTask(ctx, tx, dep.ID, KindInstall, inputs, secretInputs, req.By)
		if err != nil {
			return err
		}
		queued = &Queued{TaskID: task.ID, Deployment: dep.Name}
		return nil
	})
	if isUniqueViolation(err) {
		return nil, invalid(map[string]string{"name": fmt.Sprintf("a deployment named %s exists; choose another name or delete it first", req.Name)})
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: install %s: %w", req.Name, err)
	}
	return queued, nil
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
