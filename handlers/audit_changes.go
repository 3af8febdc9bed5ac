package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// change names what a state-changing line of the permission table does, for
// the audit log: its action and the kind of its target. The target's name
// is the form field named by form, else the route's :name (else :id)
// parameter; a service that records within its transaction names it itself.
type change struct {
	action, target, form string
}

// changes returns the change of action on a target kind.
func changes(action, target string) change { return change{action: action, target: target} }

// AuditLog is where auditChanges records entries and the API reads them (audit.Store).
type AuditLog interface {
	Record(ctx context.Context, e audit.Entry) error
	api.AuditLog
}

var _ AuditLog = (*audit.Store)(nil)

// auditChanges records one audit entry per request of a state-changing
// route: it comes before the role and credential checks, so a refused
// request is recorded too. A service that makes the change in a transaction
// writes the entry there (audit.Within); otherwise this records it once the
// answer is known, with the outcome the answer says.
func auditChanges(log AuditLog, ch change, least auth.Role, logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			p := &audit.Pending{Entry: audit.Entry{Action: ch.action, Target: audit.Target{Kind: ch.target}, Detail: paramsOf(c), RequestID: httpx.RequestID(r.Context())}}
			// The target is the request's (a form field, a path parameter),
			// else the one the handler named (audit.NameTarget: a single
			// sign-on learns who signs in from the provider's answer).
			target := func() string {
				if name := targetName(c, ch); name != "" {
					return name
				}
				return p.Entry.Target.Name
			}
			// A sign-in's actor is nobody yet: the entry names who signs in.
			actor := func() audit.Actor {
				a := actorOf(c)
				if ch.action == audit.ActionSignin && a.Via == audit.ViaNone {
					a.Name = target()
				}
				return a
			}
			p.Actor = actor
			c.SetRequest(r.WithContext(audit.WithPending(r.Context(), p)))
			err := next(c)
			if p.Recorded() {
				return err
			}
			e := p.Entry
			e.Actor = actor()
			e.Target.Name = target()
			e.Outcome, e.Reason = outcomeOf(c, err, least, e.Actor)
			if recErr := log.Record(context.WithoutCancel(r.Context()), e); recErr != nil {
				logger.Error("audit: record", "action", e.Action, "outcome", e.Outcome, "err", recErr)
			}
			return err
		}
	}
}

// actorOf is who makes the request: the API token's user, the action
// token's run or the session's user, else nobody.
func actorOf(c echo.Context) audit.Actor {
	a := audit.Actor{Via: audit.ViaNone, Address: c.RealIP()}
	user := func(u auth.User, via audit.Via) audit.Actor {
		a.UserID, a.Name, a.Role, a.Via = u.ID, u.Username, u.Role.String(), via
		return a
	}
	switch {
	case httpx.CredentialOrNil(c) != nil:
		a.TokenID = httpx.CredentialOrNil(c).TokenID
		return user(httpx.CredentialOrNil(c).User, audit.ViaAPIToken)
	case httpx.CallerOrNil(c) != nil:
		caller := httpx.CallerOrNil(c)
		a.Via, a.Name = audit.ViaActionToken, "action "+caller.Action+" of task "+strconv.FormatInt(caller.TaskID, 10)
		return a
	case httpx.CurrentUser(c) != nil:
		return user(*httpx.CurrentUser(c), audit.ViaSession)
	}
	return a
}

// targetName is the name of the request's target: ch's form field, else
// its :name or :id parameter, else for an action's call the deployment the
// action runs for.
func targetName(c echo.Context, ch change) string {
	if ch.form != "" {
		return c.FormValue(ch.form)
	}
	for _, p := range []string{"name", "id"} {
		if v := c.Param(p); v != "" {
			return v
		}
	}
	if caller := httpx.CallerOrNil(c); caller != nil && ch.target == audit.TargetDeployment {
		return caller.DeploymentName
	}
	return ""
}

// paramsOf is the request's path parameters, the entry's detail.
func paramsOf(c echo.Context) map[string]string {
	names := c.ParamNames()
	if len(names) == 0 {
		return nil
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = c.Param(n)
	}
	return out
}

// outcomeOf is how the request ended, from its error or, when a handler
// answered by itself (a form shown again with its errors, an action
// primitive's JSON error), its status; a route that needs a role and found
// nobody signed in was refused, although the answer is a redirect.
func outcomeOf(c echo.Context, err error, least auth.Role, a audit.Actor) (audit.Outcome, string) {
	status, reason := c.Response().Status, ""
	if err != nil {
		status, reason = httpx.Describe(err)
	}
	switch {
	case status >= 500:
		return audit.Failed, reason
	case status >= 400:
		if reason == "" {
			reason = http.StatusText(status)
		}
		return audit.Refused, reason
	case least != auth.Anonymous && a.Via == audit.ViaNone:
		return audit.Refused, "Not signed in."
	}
	return audit.Allowed, ""
}
