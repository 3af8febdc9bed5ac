package web

import (
	"context"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
)

// teamVisibility says which teams' deployments a user may see: nil for
// every team, else their teams' ids (teams.Store). A list passes it to its
// query, which keeps the rows of those teams only.
type teamVisibility interface {
	Visible(ctx context.Context, u auth.User) ([]int64, error)
}

var _ teamVisibility = (*teams.Store)(nil)
