package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/api"
)

// actionsDocument serves the action primitives' OpenAPI document
// (api/actions.yaml), as the REST API serves its own (openAPIDocument).
func actionsDocument() echo.HandlerFunc {
	return func(c echo.Context) error {
		doc, err := api.ActionsDocumentJSON()
		if err != nil {
			return fmt.Errorf("handlers: %w", err)
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
	}
}
