package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// NamespacePolicySave replaces the namespace policy with the form's (admins
// only: the permission table says so); a refused pattern shows the form
// again with what was typed.
func NamespacePolicySave(policies NamespacePolicies) echo.HandlerFunc {
	return func(c echo.Context) error {
		typed := deployment.NamespacePolicy{Allowed: strings.Split(c.FormValue("allowed"), "\n"), CreateNamespaces: c.FormValue("create_namespaces") == "true"}
		_, err := policies.SetNamespacePolicy(c.Request().Context(), typed, httpx.CurrentUser(c).Username)
		if styrmin.ErrorCode(err) == styrmin.EINVALID {
			current, cerr := policies.NamespacePolicy(c.Request().Context())
			if cerr != nil {
				return cerr
			}
			typed.Reserved, typed.UpdatedBy, typed.UpdatedAt = current.Reserved, current.UpdatedBy, current.UpdatedAt
			return renderNamespacePolicy(c, http.StatusUnprocessableEntity, typed, styrmin.ErrorMessage(err))
		}
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "The namespace policy is saved; it applies to installs from now on.")
		return redirect(c, "/namespaces")
	}
}
