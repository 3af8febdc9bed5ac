package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// sessionLister lists the signed-in user's own sessions.
type sessionLister interface {
	List(ctx context.Context, sess *auth.Session) ([]auth.SessionInfo, error)
}

// SessionList shows the signed-in user where they are signed in.
func SessionList(sessions sessionLister) echo.HandlerFunc {
	return func(c echo.Context) error {
		list, err := sessions.List(c.Request().Context(), httpx.Session(c))
		if err != nil {
			return err
		}
		rows := make([]views.SessionRow, 0, len(list))
		for _, s := range list {
			rows = append(rows, views.SessionRow{
				ID: s.ID, UserAgent: s.UserAgent, Address: s.Address,
				CreatedAt: s.CreatedAt, LastSeen: s.LastSeenAt, Current: s.Current,
			})
		}
		return render(c, http.StatusOK, views.SessionsPage(views.SessionsProps{Page: page(c, "Your sessions", ""), Sessions: rows}))
	}
}
