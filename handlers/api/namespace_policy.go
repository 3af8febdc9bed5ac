package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// NamespacePolicies is what the API reads and sets of the namespace policy
// (deployment.Service), as the Namespaces page does.
type NamespacePolicies interface {
	NamespacePolicy(ctx context.Context) (deployment.NamespacePolicy, error)
	SetNamespacePolicy(ctx context.Context, p deployment.NamespacePolicy, by string) (deployment.NamespacePolicy, error)
}

var _ NamespacePolicies = (*deployment.Service)(nil)

func (s *Server) GetNamespacePolicy(ctx context.Context, _ oapi.GetNamespacePolicyRequestObject) (oapi.GetNamespacePolicyResponseObject, error) {
	p, err := s.Namespaces.NamespacePolicy(ctx)
	if err != nil {
		return nil, err
	}
	return oapi.GetNamespacePolicy200JSONResponse(apiPolicyOf(p)), nil
}

func (s *Server) SetNamespacePolicy(ctx context.Context, req oapi.SetNamespacePolicyRequestObject) (oapi.SetNamespacePolicyResponseObject, error) {
	change := deployment.NamespacePolicy{Allowed: req.Body.Allowed, CreateNamespaces: req.Body.CreateNamespaces}
	p, err := s.Namespaces.SetNamespacePolicy(ctx, change, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	return oapi.SetNamespacePolicy200JSONResponse(apiPolicyOf(p)), nil
}

// apiPolicyOf is the API's view of a namespace policy.
func apiPolicyOf(p deployment.NamespacePolicy) oapi.NamespacePolicy {
	return oapi.NamespacePolicy{Allowed: p.Allowed, CreateNamespaces: p.CreateNamespaces, Reserved: p.Reserved,
		UpdatedBy: p.UpdatedBy, UpdatedAt: p.UpdatedAt}
}
