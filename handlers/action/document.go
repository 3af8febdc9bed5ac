package action

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/api"
)

// Document serves the action primitives' OpenAPI document
// (api/actions.yaml), as the REST API serves its own (api.Document).
func Document() echo.HandlerFunc {
	return func(c echo.Context) error {
		doc, err := api.ActionsDocumentJSON()
		if err != nil {
			return fmt.Errorf("action: %w", err)
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
	}
}
