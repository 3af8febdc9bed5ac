package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// AuditLog is what the API reads from the audit log (audit.Store).
type AuditLog interface {
	List(ctx context.Context, v audit.Viewer, f audit.Filter) (audit.Page, error)
}

var _ AuditLog = (*audit.Store)(nil)

// auditCursor is where the next page of entries starts: before this entry id.
type auditCursor struct {
	Before int64 `json:"before"`
}

// ListAuditEntries lists the audit log, newest first, a page at a time: all
// of it for an admin, the entries about deployments and teams for anyone
// else, and for a member only those of their teams.
func (s *Server) ListAuditEntries(ctx context.Context, req oapi.ListAuditEntriesRequestObject) (oapi.ListAuditEntriesResponseObject, error) {
	var from auditCursor
	if err := decodeCursor(req.Params.Cursor, &from); err != nil {
		return nil, err
	}
	p := req.Params
	f := audit.Filter{Before: from.Before, Limit: pageLimit(p.Limit), Actor: optional(p.Actor), Action: optional(p.Action), TargetName: optional(p.Target), RequestID: optional(p.RequestId)}
	if p.TargetKind != nil {
		f.TargetKind = string(*p.TargetKind)
	}
	if p.Outcome != nil {
		f.Outcome = audit.Outcome(*p.Outcome)
	}
	if p.Since != nil {
		f.Since = *p.Since
	}
	if p.Until != nil {
		f.Until = *p.Until
	}
	viewer := httpx.AuditViewer(httpx.APIUser(ctx))
	var err error
	if viewer.Teams, err = s.Teams.Visible(ctx, httpx.APIUser(ctx)); err != nil {
		return nil, err
	}
	page, err := s.Audit.List(ctx, viewer, f)
	if err != nil {
		return nil, err
	}
	out := oapi.ListAuditEntries200JSONResponse{Items: make([]oapi.AuditEntry, len(page.Entries))}
	for i, e := range page.Entries {
		out.Items[i] = apiAuditEntryOf(e)
	}
	if page.Next != 0 {
		out.NextCursor = encodeCursor(auditCursor{Before: page.Next})
	}
	return out, nil
}

// apiAuditEntryOf is e as the API shows it.
func apiAuditEntryOf(e audit.Entry) oapi.AuditEntry {
	a := oapi.AuditActor{Name: e.Actor.Name, Via: oapi.AuditActorVia(e.Actor.Via), Role: e.Actor.Role, Address: e.Actor.Address}
	if e.Actor.UserID != 0 {
		a.UserId = &e.Actor.UserID
	}
	if e.Actor.TokenID != 0 {
		a.TokenId = &e.Actor.TokenID
	}
	detail := e.Detail
	if detail == nil {
		detail = map[string]string{}
	}
	return oapi.AuditEntry{
		Id: e.ID, At: e.At, Actor: a, Action: e.Action, Target: oapi.AuditTarget{Kind: e.Target.Kind, Name: e.Target.Name},
		Outcome: oapi.AuditEntryOutcome(e.Outcome), Reason: e.Reason, Detail: detail, RequestId: e.RequestID,
	}
}
