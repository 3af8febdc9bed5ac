package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// NamespacePolicies is what the Namespaces page needs (deployment.Service).
type NamespacePolicies interface {
	NamespacePolicy(ctx context.Context) (deployment.NamespacePolicy, error)
	SetNamespacePolicy(ctx context.Context, p deployment.NamespacePolicy, by string) (deployment.NamespacePolicy, error)
}

var _ NamespacePolicies = (*deployment.Service)(nil)

// NamespacePolicyShow shows where operators may deploy; admins get the form that changes it.
func NamespacePolicyShow(policies NamespacePolicies) echo.HandlerFunc {
	return func(c echo.Context) error {
		policy, err := policies.NamespacePolicy(c.Request().Context())
		if err != nil {
			return err
		}
		return renderNamespacePolicy(c, http.StatusOK, policy, "")
	}
}

// renderNamespacePolicy renders the Namespaces page showing policy, with the
// message of a refused change (or "").
func renderNamespacePolicy(c echo.Context, status int, policy deployment.NamespacePolicy, refused string) error {
	return render(c, status, views.NamespacePolicyPage(views.NamespacePolicyProps{
		Page: page(c, "Namespaces", views.NavNamespaces), Allowed: strings.Join(policy.Allowed, "\n"), CreateNamespaces: policy.CreateNamespaces,
		Reserved: policy.Reserved, UpdatedBy: policy.UpdatedBy, UpdatedAt: policy.UpdatedAt, Error: refused,
	}))
}
