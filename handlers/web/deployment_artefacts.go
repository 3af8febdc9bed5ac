package web

import (
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// artefactsProps are a deployment's artefacts as its page shows them.
func artefactsProps(a *deployment.Artefacts) views.ArtefactsProps {
	p := views.ArtefactsProps{Actions: a.Actions, More: a.More, Page: deployment.ArtefactPage}
	for _, it := range a.Items {
		row := views.ArtefactRow{Name: it.Name, SizeBytes: -1, Action: it.Action, TaskID: it.TaskID, By: it.By, At: it.At, PrunedBy: it.PrunedBy}
		if it.SizeBytes != nil {
			row.SizeBytes = *it.SizeBytes
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}
