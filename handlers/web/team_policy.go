package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/teams/policytext"
	"github.com/styrmin/styrmin/views"
)

// TeamPolicySave replaces a team's policy with the form's: one entry a line
// for namespaces and drivers, a whole number of deployments, and CPU and
// memory as Kubernetes quantities (500m, 4Gi); each empty is no rule. The
// store checks the rules; a refusal is said at the form's fields.
func TeamPolicySave(store *teams.Store, svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		form := views.TeamPolicyForm{Namespaces: c.FormValue("namespaces"), Drivers: c.FormValue("drivers"), DriversRule: c.FormValue("drivers_rule"),
			MaxDeployments: strings.TrimSpace(c.FormValue("max_deployments")), CPU: strings.TrimSpace(c.FormValue("max_cpu_millis")), Memory: strings.TrimSpace(c.FormValue("max_memory_bytes"))}
		p, err := policyOf(form)
		if err == nil {
			err = store.SetPolicy(c.Request().Context(), c.Param("name"), p)
		}
		if err != nil {
			if !refusedInput(err) {
				return err
			}
			form.Error, form.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
			return renderTeam(c, store, svc, http.StatusUnprocessableEntity, teamForms{policy: &form})
		}
		return teamChanged(c, store, svc, "The policy of the team "+c.Param("name")+" is saved: installs are checked against it from now on.")
	}
}

// policyOf reads a policy form; a number or quantity it cannot read, or a
// list of drivers without a driver, is refused at its field.
func policyOf(f views.TeamPolicyForm) (teams.Policy, error) {
	p := teams.Policy{Namespaces: lines(f.Namespaces)}
	bad := map[string]string{}
	switch f.DriversRule {
	case views.DriversEvery:
	case views.DriversNone:
		p.Drivers = []string{}
	case views.DriversListed, "": // without a choice (a form of before it), the list or every driver
		if p.Drivers = lines(f.Drivers); p.Drivers == nil && f.DriversRule == views.DriversListed {
			bad["drivers"] = "List at least one driver, or choose every driver or no driver."
		}
	default:
		bad["drivers"] = "Choose every driver, only those listed, or no driver."
	}
	if f.MaxDeployments != "" {
		n, err := strconv.ParseInt(f.MaxDeployments, 10, 64)
		if err != nil || n < 0 {
			bad["max_deployments"] = "Give a whole number of 0 or more, or nothing for no limit."
		}
		p.MaxDeployments = &n
	}
	if f.CPU != "" {
		m, err := policytext.ParseCPU(f.CPU)
		if err != nil {
			bad["max_cpu_millis"] = "Give CPU as Kubernetes writes it (2, 500m), or nothing for no limit."
		}
		p.MaxCPUMillis = &m
	}
	if f.Memory != "" {
		b, err := policytext.ParseMemory(f.Memory)
		if err != nil {
			bad["max_memory_bytes"] = "Give memory as Kubernetes writes it (512Mi, 4Gi), or nothing for no limit."
		}
		p.MaxMemoryBytes = &b
	}
	if len(bad) > 0 {
		return teams.Policy{}, &styrmin.Error{Code: styrmin.EINVALID, Message: "Some rules cannot be read; see the fields.", Fields: bad}
	}
	return p, nil
}

// lines are the non-empty lines of a text, trimmed; nil for none.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TeamDelete deletes a team that holds no deployment and goes to the teams.
func TeamDelete(store *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := store.Delete(c.Request().Context(), c.Param("name")); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "The team "+c.Param("name")+" is deleted.")
		return redirect(c, "/teams")
	}
}
