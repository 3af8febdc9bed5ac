package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// AuditReader is what the audit page reads (audit.Store): the query the
// REST API's GET /api/v1/audit uses, with its visibility rule.
type AuditReader interface {
	List(ctx context.Context, v audit.Viewer, f audit.Filter) (audit.Page, error)
}

var _ AuditReader = (*audit.Store)(nil)

// AuditList shows the audit log, newest first, filtered by ?actor=,
// ?action=, ?target_kind=, ?target=, ?outcome=, ?since=, ?until= and ?request_id= (the
// REST API's names), a page at a time (?before=). An admin sees every entry;
// anyone else only the entries about deployments and teams, and a member
// only those of their teams, whatever the filter asks (httpx.AuditViewer and
// the visible teams, applied by the store's query). For htmx (the filters
// and the pager) it sends only the list.
func AuditList(log AuditReader, visible teamVisibility) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := *httpx.CurrentUser(c)
		viewer := httpx.AuditViewer(u)
		var err error
		if viewer.Teams, err = visible.Visible(c.Request().Context(), u); err != nil {
			return err
		}
		typed, f, err := auditFilter(c)
		props := views.AuditProps{Page: page(c, "Audit log", views.NavAudit), Filter: typed, Everything: viewer.Admin,
			TargetKinds: []string{audit.TargetDeployment, audit.TargetTeam}}
		if viewer.Admin {
			props.TargetKinds = audit.TargetKinds()
		}
		for _, o := range audit.Outcomes() {
			props.Outcomes = append(props.Outcomes, string(o))
		}
		status := http.StatusOK
		var list audit.Page
		if err == nil {
			list, err = log.List(c.Request().Context(), viewer, f)
		}
		switch {
		case styrmin.ErrorCode(err) == styrmin.EINVALID:
			props.Problem, status = styrmin.ErrorMessage(err), http.StatusBadRequest
		case err != nil:
			return err
		}
		for _, e := range list.Entries {
			props.Entries = append(props.Entries, auditRow(e))
		}
		props.OlderBefore = list.Next
		c.Response().Header().Add("Vary", "HX-Request")
		if isHTMX(c) {
			// The address shared is the filter's own, without the form's empty fields.
			c.Response().Header().Set("HX-Push-Url", views.AuditURL(typed))
			return render(c, status, views.AuditLog(props))
		}
		return render(c, status, views.AuditPage(props))
	}
}

// auditFilter reads the audit page's filter from the query: as typed (the
// times in the form a date-time field shows) and as the store takes it.
func auditFilter(c echo.Context) (views.AuditFilter, audit.Filter, error) {
	typed := views.AuditFilter{
		Actor:      strings.TrimSpace(c.QueryParam("actor")),
		Action:     strings.TrimSpace(c.QueryParam("action")),
		TargetKind: c.QueryParam("target_kind"),
		Target:     strings.TrimSpace(c.QueryParam("target")),
		Outcome:    c.QueryParam("outcome"),
		Since:      strings.TrimSpace(c.QueryParam("since")),
		Until:      strings.TrimSpace(c.QueryParam("until")),
		RequestID:  strings.TrimSpace(c.QueryParam("request_id")),
	}
	f := audit.Filter{Actor: typed.Actor, Action: typed.Action, TargetKind: typed.TargetKind, TargetName: typed.Target, Outcome: audit.Outcome(typed.Outcome),
		RequestID: typed.RequestID}
	var err error
	if typed.Before, err = beforeParam(c); err != nil {
		return typed, f, err
	}
	f.Before = typed.Before
	if typed.TargetKind != "" && !slices.Contains(audit.TargetKinds(), typed.TargetKind) {
		return typed, f, styrmin.Errorf(styrmin.EINVALID, "There is no target kind %q; choose one of %s.", typed.TargetKind, strings.Join(audit.TargetKinds(), ", "))
	}
	if f.Since, err = audit.ParseTime(typed.Since); err != nil {
		return typed, f, err
	}
	if f.Until, err = audit.ParseTime(typed.Until); err != nil {
		return typed, f, err
	}
	typed.Since, typed.Until = dateTimeField(f.Since), dateTimeField(f.Until)
	return typed, f, nil
}

// dateTimeField is t as a date-time field shows it (UTC), "" for no time.
func dateTimeField(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Second() == 0 && t.Nanosecond() == 0:
		return t.UTC().Format("2006-01-02T15:04")
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

// auditRow is an entry as the page shows it.
func auditRow(e audit.Entry) views.AuditRow {
	row := views.AuditRow{ID: e.ID, At: e.At, Actor: e.Actor.Name, Via: string(e.Actor.Via), Role: e.Actor.Role, TokenID: e.Actor.TokenID,
		Address: e.Actor.Address, Action: e.Action, TargetKind: e.Target.Kind, TargetName: e.Target.Name, Outcome: string(e.Outcome), Reason: e.Reason, RequestID: e.RequestID}
	for k, v := range e.Detail {
		row.Detail = append(row.Detail, views.AuditDetail{Key: k, Value: v})
	}
	slices.SortFunc(row.Detail, func(a, b views.AuditDetail) int { return strings.Compare(a.Key, b.Key) })
	return row
}
