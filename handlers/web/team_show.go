package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/teams/policytext"
	"github.com/styrmin/styrmin/views"
)

// teamForms are a team page's forms after a refused change; a zero value
// shows them empty, the policy as stored.
type teamForms struct {
	member views.TeamMemberForm
	policy *views.TeamPolicyForm
}

// TeamShow shows a team: its members, its policy and its live deployments.
// The permission table lets in its members and those whose own role reads
// every team; the others are told it does not exist.
func TeamShow(store *teams.Store, svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderTeam(c, store, svc, http.StatusOK, teamForms{})
	}
}

// renderTeam renders the page of the team of the route's :name.
func renderTeam(c echo.Context, store *teams.Store, svc deploymentReader, status int, forms teamForms) error {
	ctx := c.Request().Context()
	d, err := store.Detail(ctx, c.Param("name"))
	if err != nil {
		return err
	}
	held, err := svc.List(ctx, deployment.ListOptions{Teams: []int64{d.ID}})
	if err != nil {
		return err
	}
	me := httpx.CurrentUser(c)
	p := views.TeamProps{Page: page(c, d.Name, views.NavTeams), Name: d.Name, MemberForm: forms.member,
		ManageMembers: me.Role.AtLeast(auth.Admin), EditPolicy: me.Role.AtLeast(auth.Admin)}
	for _, m := range d.Members {
		p.Members = append(p.Members, views.TeamMemberRow{Username: m.Username, Role: m.Role.String(), UserRole: m.UserRole.String()})
		if m.UserID == me.ID && m.Role.AtLeast(auth.Admin) {
			p.ManageMembers = true // the team's own admins manage its members
		}
	}
	for _, dep := range held.Items {
		p.Deployments = append(p.Deployments, views.TeamDeploymentRow{Name: dep.Name, Namespace: dep.Namespace, Driver: dep.Driver, Status: string(dep.Status)})
	}
	if forms.policy != nil {
		p.Policy = *forms.policy
	} else {
		p.Policy = policyForm(d.Policy)
	}
	return render(c, status, views.TeamPage(p))
}

// policyForm is a team's policy as its form shows it.
func policyForm(p teams.Policy) views.TeamPolicyForm {
	f := views.TeamPolicyForm{Namespaces: strings.Join(p.Namespaces, "\n"), Drivers: strings.Join(p.Drivers, "\n"), DriversRule: views.DriversListed}
	switch {
	case p.Drivers == nil:
		f.DriversRule = views.DriversEvery
	case len(p.Drivers) == 0:
		f.DriversRule = views.DriversNone
	}
	if p.MaxDeployments != nil {
		f.MaxDeployments = strconv.FormatInt(*p.MaxDeployments, 10)
	}
	if p.MaxCPUMillis != nil {
		f.CPU = policytext.CPUString(*p.MaxCPUMillis)
	}
	if p.MaxMemoryBytes != nil {
		f.Memory = policytext.MemoryString(*p.MaxMemoryBytes)
	}
	return f
}
