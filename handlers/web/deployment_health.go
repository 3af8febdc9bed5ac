package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// DeploymentHealth is a deployment's health section, which its page asks
// for every views.HealthPoll; without htmx, the page itself.
func DeploymentHealth(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		if !isHTMX(c) {
			return c.Redirect(http.StatusSeeOther, "/deployments/"+url.PathEscape(name)+"#deployment-health")
		}
		h, err := svc.Health(c.Request().Context(), name)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.DeploymentHealth(healthProps(h)))
	}
}

// healthProps is a deployment's health as its section shows it.
func healthProps(h *deployment.Health) views.HealthProps {
	p := views.HealthProps{Name: h.Name, Word: string(h.Word), Reasons: h.Reasons, At: h.At, EventsLeftOut: h.EventsLeftOut}
	for _, c := range h.Components {
		for _, w := range c.Workloads {
			p.Workloads = append(p.Workloads, views.HealthWorkloadRow{Component: c.Name, Kind: w.Kind, Name: w.Name,
				Desired: int(w.Replicas), Ready: int(w.ReadyReplicas), Available: int(w.AvailableReplicas)})
		}
	}
	for _, pod := range h.Pods {
		p.Pods = append(p.Pods, views.PodRow{Name: pod.Name, Workload: pod.Workload, Phase: pod.Phase, Ready: pod.Ready, Containers: pod.Containers,
			Restarts: int(pod.Restarts), Created: pod.Created, Node: pod.Node, Waiting: pod.Waiting, LastTermination: pod.LastTermination, Message: pod.Message})
	}
	for _, c := range h.PVCs {
		p.PVCs = append(p.PVCs, views.PVCRow{Name: c.Name, Phase: c.Phase, Size: c.Size, StorageClass: c.StorageClass})
	}
	for _, e := range h.Events {
		p.Events = append(p.Events, views.EventRow{Type: e.Type, Reason: e.Reason, Object: e.Object, Message: e.Message, Count: int(e.Count), Last: e.Last})
	}
	return p
}
