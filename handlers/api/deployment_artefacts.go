package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
)

// ListDeploymentArtefacts answers what the runs of the deployment's actions
// that declare artefacts produced, newest first (deployment.Artefacts).
func (s *Server) ListDeploymentArtefacts(ctx context.Context, req oapi.ListDeploymentArtefactsRequestObject) (oapi.ListDeploymentArtefactsResponseObject, error) {
	a, err := s.Deployments.Artefacts(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	out := oapi.Artefacts{Actions: append([]string{}, a.Actions...), Items: make([]oapi.Artefact, 0, len(a.Items)), More: a.More}
	for _, it := range a.Items {
		item := oapi.Artefact{Name: it.Name, SizeBytes: it.SizeBytes, Action: it.Action, Task: it.TaskID, By: it.By, At: it.At}
		if it.PrunedBy != 0 {
			item.PrunedBy = &it.PrunedBy
		}
		out.Items = append(out.Items, item)
	}
	return oapi.ListDeploymentArtefacts200JSONResponse(out), nil
}
