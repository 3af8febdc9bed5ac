package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
)

// Permissions is what a driver version's chart creates beyond its release's
// namespace, rendered with the driver's default values, and what an admin
// approved of it.
type Permissions struct {
	// Needs is what the chart renders with default values that needs approval.
	Needs permissions.Set
	// RenderError says why the chart did not render with its default
	// values; Needs is empty then and nothing can be approved.
	RenderError string
	// Approval is nil until an admin approves.
	Approval *Approval
}

// Approval is what an admin approved for a driver version, who and when.
type Approval struct {
	Set permissions.Set
	By  string
	At  time.Time
}

// Approved is what installs of the version may create: nothing until approved.
func (p *Permissions) Approved() permissions.Set {
	if p.Approval == nil {
		return permissions.Set{}
	}
	return p.Approval.Set
}

// Pending is what the version's chart needs that no admin approved.
func (p *Permissions) Pending() permissions.Set {
	return permissions.Missing(p.Needs, p.Approved())
}

// Extra is what an admin approved beyond what the chart creates with its
// default values: what it creates with other values.
func (p *Permissions) Extra() permissions.Set {
	return permissions.Missing(p.Approved(), p.Needs)
}

// renderNamespace and renderName are the release a version's chart is
// rendered as at import; the names never matter (see permissions).
const renderNamespace, renderName = "styrmin-import", "import"

// needs renders b's chart with the driver's sample values and returns
// what it needs as JSON, or why it did not render.
func needs(ctx context.Context, b *drivers.Bundle) ([]byte, pgtype.Text) {
	set, err := render(ctx, b)
	if err != nil {
		return nil, pgtype.Text{String: renderFailure(err), Valid: true}
	}
	data, err := json.Marshal(set)
	if err != nil {
		return nil, pgtype.Text{String: err.Error(), Valid: true}
	}
	return data, pgtype.Text{}
}

// maxRenderFailure bounds the stored and shown reason a chart did not
// render: the chart's own words (a `fail` message) can be as long as the chart.
const maxRenderFailure = 2000

// renderFailure says why a driver's chart did not render, at most
// maxRenderFailure bytes of it: its values template or Helm's message, which
// are the driver's to fix.
func renderFailure(err error) string {
	msg := styrmin.ErrorMessage(err)
	var te *drivers.TemplateError
	if errors.As(err, &te) {
		msg = "The driver's " + te.Error() + "."
	}
	if len(msg) > maxRenderFailure {
		msg = strings.ToValidUTF8(msg[:maxRenderFailure], "") + "…"
	}
	return msg
}

// render renders b's chart with the driver's sample values (its defaults,
// and placeholders for required parameters without one) and parses what it
// creates.
func render(ctx context.Context, b *drivers.Bundle) (permissions.Set, error) {
	d := b.Driver
	values, err := release.Values(ctx, d, d.SampleValues(), b.Chart.Metadata.AppVersion, renderNamespace, renderName)
	if err != nil {
		return permissions.Set{}, err
	}
	manifest, err := release.Render(ctx, b.Chart, values, renderNamespace, renderName)
	if err != nil {
		return permissions.Set{}, err
	}
	return permissions.Parse(manifest, renderNamespace)
}

// Permissions returns what a driver version's chart needs and its approval.
// A version imported before permissions were recorded is rendered now, once.
// A missing version is an ENOTFOUND error.
func (c *Catalog) Permissions(ctx context.Context, name, version string) (*Permissions, error) {
	key := db.GetDriverPermissionsParams{Name: name, Version: version}
	row, err := c.q.GetDriverPermissions(ctx, key)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: permissions of %s %s: %w", name, version, err)
	}
	if row.Permissions == nil && !row.PermissionsError.Valid {
		b, err := c.Bundle(ctx, name, version)
		if err != nil {
			return nil, err
		}
		data, why := needs(ctx, b)
		err = c.q.SetDriverPermissions(ctx, db.SetDriverPermissionsParams{Name: name, Version: version, Permissions: data, PermissionsError: why})
		if err != nil {
			return nil, fmt.Errorf("catalog: permissions of %s %s: %w", name, version, err)
		}
		if row, err = c.q.GetDriverPermissions(ctx, key); err != nil {
			return nil, fmt.Errorf("catalog: permissions of %s %s: %w", name, version, err)
		}
	}
	p := &Permissions{RenderError: row.PermissionsError.String}
	if err := unmarshalSet(row.Permissions, &p.Needs); err != nil {
		return nil, fmt.Errorf("catalog: permissions of %s %s: %w", name, version, err)
	}
	if row.ApprovedPermissions != nil {
		p.Approval = &Approval{By: row.ApprovedBy.String, At: *row.ApprovedAt}
		if err := unmarshalSet(row.ApprovedPermissions, &p.Approval.Set); err != nil {
			return nil, fmt.Errorf("catalog: approved permissions of %s %s: %w", name, version, err)
		}
	}
	return p, nil
}

// ApprovePermissions records that by approved items for a driver version,
// in addition to what was approved before, and returns the result. With
// items nil, the items are everything the version's chart needs as recorded
// (what Permissions showed); a version whose chart did not render has
// nothing of its own to approve (EINVALID). Other items (what the chart
// creates with other values than its defaults, as a refusal names them)
// must each name what they are (permissions.Set.Validate).
func (c *Catalog) ApprovePermissions(ctx context.Context, name, version, by string, items *permissions.Set) (*Permissions, error) {
	for attempt := 0; ; attempt++ {
		p, err := c.Permissions(ctx, name, version)
		if err != nil {
			return nil, err
		}
		add := p.Needs
		switch {
		case items != nil:
			if err := items.Validate(); err != nil {
				return nil, err
			}
			add = *items
		case p.RenderError != "":
			return nil, styrmin.Errorf(styrmin.EINVALID, "The chart of driver %s %s did not render with its default values (%s), so there is nothing to approve.", name, version, p.RenderError)
		}
		var previous []byte
		if p.Approval != nil {
			if previous, err = json.Marshal(p.Approval.Set); err != nil {
				return nil, fmt.Errorf("catalog: approve permissions of %s %s: %w", name, version, err)
			}
		}
		approved, err := json.Marshal(permissions.Union(p.Approved(), add))
		if err != nil {
			return nil, fmt.Errorf("catalog: approve permissions of %s %s: %w", name, version, err)
		}
		err = audit.Change(ctx, c.conn, func(tx pgx.Tx) (string, error) {
			audit.Note(ctx, "items", strings.Join(add.Lines(), "; "))
			_, err := c.q.WithTx(tx).ApproveDriverPermissions(ctx, db.ApproveDriverPermissionsParams{
				Name: name, Version: version, Approved: approved, Previous: previous, ApprovedBy: pgtype.Text{String: by, Valid: true},
			})
			return name, err
		})
		if errors.Is(err, pgx.ErrNoRows) && attempt < maxApproveAttempts {
			continue // another approval came first: add to it
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: approve permissions of %s %s: %w", name, version, err)
		}
		return c.Permissions(ctx, name, version)
	}
}

// maxApproveAttempts bounds how often an approval starts again because
// another one changed the version's approval meanwhile.
const maxApproveAttempts = 10

// unmarshalSet decodes a stored set; NULL is the empty set.
func unmarshalSet(data []byte, s *permissions.Set) error {
	if data == nil {
		return nil
	}
	return json.Unmarshal(data, s)
}
