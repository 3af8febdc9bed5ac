package httpx

import (
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
)

// AuditViewer is how u reads the audit log: an admin all of it, anyone
// else only the entries about deployments and teams (of which a member's
// teams only: the caller sets Teams from teams.Store.Visible). The REST API
// and the audit page both ask it, and the store's query applies it whatever
// the filter.
func AuditViewer(u auth.User) audit.Viewer { return audit.Viewer{Admin: u.Role.AtLeast(auth.Admin)} }
