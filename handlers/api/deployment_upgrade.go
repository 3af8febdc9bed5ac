package api

import (
	"context"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// UpgradeDeployment reviews an upgrade as the upgrade page does (the
// request's values over the deployment's current ones, and a Helm dry run):
// the review plans it once. With dry_run the review is the answer; without,
// the plan the review carries is queued (ConfirmUpgrade), unless its dry run
// failed.
func (s *Server) UpgradeDeployment(ctx context.Context, req oapi.UpgradeDeploymentRequestObject) (oapi.UpgradeDeploymentResponseObject, error) {
	in := optional(req.Body)
	by := httpx.APIUser(ctx).Username
	review, err := s.Deployments.Review(ctx, &deployment.Upgrade{
		Name: req.Name, DriverVersion: optional(in.DriverVersion), AppVersion: optional(in.AppVersion),
		Parameters: jsonParameters(in.Parameters), Prompts: jsonPrompts(in.Prompts), By: by,
	})
	if err != nil {
		return nil, err
	}
	if optional(req.Params.DryRun) {
		return oapi.UpgradeDeployment200JSONResponse(apiReviewOf(review)), nil
	}
	if review.DryRunError != "" {
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "The upgrade's dry run failed, so it was not queued: %s", review.DryRunError)
	}
	accepted, err := s.queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: by})
	if err != nil {
		return nil, err
	}
	return oapi.UpgradeDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// apiReviewOf is an upgrade's review as the API shows it: secret parameters
// say only whether they change, and the manifest diff has no Secret values.
func apiReviewOf(r *deployment.Review) oapi.UpgradeReview {
	out := oapi.UpgradeReview{
		FromDriverVersion: r.FromDriverVersion, DriverVersion: r.DriverVersion,
		FromAppVersion: r.FromAppVersion, AppVersion: r.AppVersion,
		Changes: []oapi.ParameterChange{}, Resources: []oapi.ResourceDiff{},
	}
	for _, c := range r.Changes {
		ch := oapi.ParameterChange{Name: c.Name, Title: c.Title, Change: oapi.ParameterChangeChange(c.Kind), Secret: c.Secret}
		if !c.Secret {
			ch.From, ch.To = c.Old, c.New
		}
		out.Changes = append(out.Changes, ch)
	}
	for _, d := range r.Resources {
		res := oapi.ResourceDiff{Kind: d.Kind, Name: d.Name, Change: oapi.ResourceDiffChange(d.Change), Diff: d.Diff}
		if d.Namespace != "" {
			res.Namespace = &d.Namespace
		}
		out.Resources = append(out.Resources, res)
	}
	if len(r.Prompts) > 0 {
		prompts := make([]oapi.PromptValue, len(r.Prompts))
		for i, pv := range r.Prompts {
			prompts[i] = oapi.PromptValue{Action: pv.Action, Hook: string(pv.Hook), Name: pv.Name, Title: pv.Title, Value: pv.Value, Secret: pv.Secret, Set: pv.Set}
		}
		out.Prompts = &prompts
	}
	if r.DryRunError != "" {
		out.DryRunError = &r.DryRunError
	}
	return out
}
