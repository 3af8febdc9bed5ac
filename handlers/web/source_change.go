package web

import (
	"context"
	"fmt"

	"github.com/labstack/echo/v4"
)

// SourceChange syncs or deletes the source :name (admins only: the
// permission table says so): change is that method of Sources
// (Sources.RequestSync), done the message, with the source's name, that
// says what it did.
func SourceChange(sources Sources, change func(Sources, context.Context, string) error, done string) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		if err := change(sources, c.Request().Context(), name); err != nil {
			return err
		}
		return sourceDone(c, sources, fmt.Sprintf(done, name))
	}
}
