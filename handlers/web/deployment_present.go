package web

import (
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// The prefixes of the forms' field names: param.<name> for a parameter
// (and a manual action's prompt), prompt.<action>.<name> for a hook action's
// prompt. They are deployment.Field's FormKey, so that an operation's
// *deployment.InvalidError marks each bad field next to it.
const (
	paramPrefix  = "param"
	promptPrefix = "prompt"
)

// enteredForm is what a user typed into an install or upgrade form, as the
// form sends it. Secrets are read for the service but never shown again.
type enteredForm struct {
	Name, Namespace, Team, DriverVersion, AppVersion string
	// Params holds each parameter field by parameter name; an unchecked
	// boolean is absent.
	Params map[string]string
	// Prompts holds each hook action prompt field by action, then prompt.
	Prompts map[string]map[string]string
	// Carried is set when the request carries the form's fields (a POST, or
	// the htmx reload of the form for another driver version).
	Carried bool
}

// readEntered reads the form fields of an install, upgrade or delete form
// from values (the POST body or, for a reload, the query).
func readEntered(values url.Values) enteredForm {
	f := enteredForm{
		Name: values.Get("name"), Namespace: values.Get("namespace"), Team: values.Get("team"),
		DriverVersion: values.Get("driver_version"), AppVersion: values.Get("app_version"),
		Params: map[string]string{}, Prompts: map[string]map[string]string{},
	}
	for key, vs := range values {
		if len(vs) == 0 {
			continue
		}
		if name, ok := strings.CutPrefix(key, paramPrefix+"."); ok {
			f.Params[name] = vs[0]
			f.Carried = true
		}
		if rest, ok := strings.CutPrefix(key, promptPrefix+"."); ok {
			if action, name, ok := strings.Cut(rest, "."); ok {
				if f.Prompts[action] == nil {
					f.Prompts[action] = map[string]string{}
				}
				f.Prompts[action][name] = vs[0]
				f.Carried = true
			}
		}
	}
	_, hasApp := values["app_version"]
	f.Carried = f.Carried || hasApp
	return f
}

// formValues returns the text each parameter (or prompt) field shows: start
// (the service's text: defaults or current values), overridden by what the
// user entered when the form was carried. Secrets are never in the result.
func formValues(params []drivers.Parameter, start, entered map[string]string, carried bool) map[string]string {
	out := map[string]string{}
	for _, p := range params {
		if p.Type == drivers.TypeSecret {
			continue
		}
		v := start[p.Name]
		if carried {
			if e, given := entered[p.Name]; given {
				v = e
			} else if p.Type == drivers.TypeBoolean {
				v = "" // an unchecked box sends nothing
			}
		}
		out[p.Name] = v
	}
	return out
}

// paramGroups builds a form's parameter fields, grouped as the driver
// declares them: ungrouped first, then each group in order of appearance.
// prefix starts the fields' names (paramPrefix, or promptPrefix.<action>),
// secretsSet names the secrets that have a value already (upgrade; nil for
// an install), immutable parameters are locked on an upgrade, and
// fieldErrors are the service's field errors (<prefix>.<name> → message).
func paramGroups(prefix string, params []drivers.Parameter, values map[string]string, fieldErrors map[string]string, upgrade bool, secretsSet []string, md *views.Markdown) ([]views.ParamGroup, error) {
	form := paramForm{prefix: prefix, values: values, fieldErrors: fieldErrors, upgrade: upgrade, secretsSet: secretsSet, md: md}
	var groups []views.ParamGroup
	for _, group := range drivers.Groups(params) {
		g := views.ParamGroup{Name: group.Name}
		for _, p := range group.Parameters {
			f, err := form.field(p)
			if err != nil {
				return nil, err
			}
			g.Fields = append(g.Fields, f)
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// paramForm is what paramGroups builds each field from.
type paramForm struct {
	prefix              string
	values, fieldErrors map[string]string
	upgrade             bool
	secretsSet          []string
	md                  *views.Markdown
}

// field builds the form field of parameter p.
func (form paramForm) field(p drivers.Parameter) (views.ParamField, error) {
	desc, err := form.md.HTML(p.Description)
	if err != nil {
		return views.ParamField{}, err
	}
	f := views.ParamField{
		Prefix: form.prefix, Name: p.Name, Title: p.Title, Description: desc, Type: string(p.Type),
		Required: p.Required, Locked: form.upgrade && p.Immutable, Pattern: p.Pattern,
		Error: form.fieldErrors[form.prefix+"."+p.Name],
	}
	if p.Type != drivers.TypeSecret {
		f.Value = form.values[p.Name]
	} else {
		f.KeepsSecret = slices.Contains(form.secretsSet, p.Name)
	}
	if p.MinLength != nil {
		f.MinLength = *p.MinLength
	}
	if p.MaxLength != nil {
		f.MaxLength = *p.MaxLength
	}
	if p.Min != nil {
		f.Min = number(*p.Min)
	}
	if p.Max != nil {
		f.Max = number(*p.Max)
	}
	for _, choice := range p.Choices {
		f.Choices = append(f.Choices, views.ParamChoice{Value: scalarText(choice)})
	}
	return f, nil
}

// hookActionSections builds a section per hook action of a form, its prompt
// fields named prompt.<action>.<prompt>: start holds their starting text by
// action (the service's), overridden by what the user entered when the form
// was carried; fieldErrors are the service's field errors.
func hookActionSections(actions []*drivers.Action, start map[string]map[string]string, entered enteredForm, fieldErrors map[string]string, md *views.Markdown) ([]views.HookActionSection, error) {
	out := make([]views.HookActionSection, 0, len(actions))
	for _, a := range actions {
		values := formValues(a.Prompts, start[a.Name], entered.Prompts[a.Name], entered.Carried)
		groups, err := paramGroups(promptPrefix+"."+a.Name, a.Prompts, values, fieldErrors, false, nil, md)
		if err != nil {
			return nil, err
		}
		desc, err := md.HTML(a.Description)
		if err != nil {
			return nil, err
		}
		out = append(out, views.HookActionSection{Name: a.Name, Title: cmp.Or(a.Title, a.Name), Hook: string(a.Hook), Description: desc, Prompts: groups})
	}
	return out, nil
}

// versionChoices lists driver versions (newest first) for a select; current
// is the deployed one ("" on an install).
func versionChoices(versions []string, current string) []views.VersionChoice {
	out := make([]views.VersionChoice, 0, len(versions))
	for i, v := range versions {
		c := views.VersionChoice{Version: v}
		switch {
		case v == current:
			c.Note = "current"
		case i == 0:
			c.Note = "newest"
		}
		out = append(out, c)
	}
	return out
}

// driverIconURL is a driver version's icon address, "" when it has none.
func driverIconURL(name, version string, hasIcon bool) string {
	if !hasIcon {
		return ""
	}
	return iconURL(name, version)
}

// deploymentPath is the address of a deployment's page.
func deploymentPath(name string) string {
	return "/deployments/" + url.PathEscape(name)
}

// taskProps turns a task into what its history entry and live fragment show.
// Nested tasks are shown under the same deployment's addresses.
func taskProps(deploymentName string, t deployment.Task) views.TaskProps {
	p := views.TaskProps{
		Deployment: deploymentName, ID: t.ID, Kind: t.Kind, Status: string(t.Status), Ahead: t.QueuePosition,
		CreatedBy: t.By, CreatedAt: t.CreatedAt, Message: t.Message,
		Warnings: t.Summary.Warnings, FailedStep: t.Summary.FailedStep, FailedReason: t.Summary.FailedReason,
	}
	if t.StartedAt != nil {
		p.StartedAt = *t.StartedAt
	}
	if t.EndedAt != nil {
		p.EndedAt = *t.EndedAt
	}
	p.Inputs, p.ChangedParams = taskInputs(&t)
	for _, s := range t.Steps {
		p.Steps = append(p.Steps, stepProps(deploymentName, s))
	}
	if r := t.RefusedPermissions(); r != nil {
		items, err := json.Marshal(r.Items)
		if err == nil { // a Set of strings always marshals
			p.Refused = &views.TaskRefusal{Driver: r.Driver, Version: r.Version, Items: r.Items.Lines(),
				ItemsJSON: string(items), ApproveURL: permissionsApproveURL(r.Driver, r.Version)}
		}
	}
	return p
}

// stepProps turns a task's step into what the task shows.
func stepProps(deploymentName string, s deployment.Step) views.StepProps {
	p := views.StepProps{Title: s.Title, Kind: string(s.Kind), Status: string(s.Status), Message: s.Message, StartedAt: s.StartedAt}
	if s.EndedAt != nil {
		p.EndedAt = *s.EndedAt
	}
	for _, n := range s.Tasks {
		p.Nested = append(p.Nested, taskProps(deploymentName, n))
	}
	for _, l := range s.Logs {
		p.Logs = append(p.Logs, views.LogLine{Time: l.At, Level: l.Level, Message: l.Message})
	}
	if h := s.Hook; h != nil {
		p.Error, p.DeletedJob = h.Error, strings.Join(h.DeletedJobs, ", ")
		if h.JobDetail != nil {
			p.JobTail, p.JobMessage = h.JobTail, h.JobMessage
		}
	}
	return p
}

// taskInputs summarises a task's typed inputs: the versions, revision,
// components or action it was asked for, and the parameters it changes.
// Parameter and prompt values are left out (and a task's inputs never hold
// a secret). Inputs that did not all read as their kind's show why, and
// nothing else.
func taskInputs(t *deployment.Task) (lines []views.TaskInput, changed []string) {
	add := func(label, value string) {
		if value != "" {
			lines = append(lines, views.TaskInput{Label: label, Value: value})
		}
	}
	if t.InputsUnread != "" {
		add("Inputs", t.InputsUnread)
		return lines, nil
	}
	fromTo := func(from, to string) string {
		if from == "" || from == to {
			return to
		}
		return from + " → " + to
	}
	switch in := t.Inputs.(type) {
	case *deployment.InstallInputs:
		add("Driver version", in.DriverVersion)
		add("Application version", in.AppVersion)
		add("Namespace", in.Namespace)
	case *deployment.UpgradeInputs:
		add("Driver version", fromTo(in.FromDriverVersion, in.DriverVersion))
		add("Application version", fromTo(in.FromAppVersion, in.AppVersion))
		changed = in.Changed
	case *deployment.RollbackInputs:
		add("Revision", strconv.Itoa(in.Revision))
		add("Driver version", in.DriverVersion)
		add("Application version", in.AppVersion)
	case *deployment.ComponentsInputs:
		add("Components", cmp.Or(strings.Join(in.Components, ", "), "all"))
	case *deployment.ActionInputs:
		add("Action", in.Action)
	}
	return lines, changed
}

// taskPropsList maps a page of tasks.
func taskPropsList(deploymentName string, tasks []deployment.Task) []views.TaskProps {
	out := make([]views.TaskProps, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, taskProps(deploymentName, t))
	}
	return out
}

// unfoldedTasks is how many of the newest tasks on a deployment's page show
// their steps; the ended tasks after them show a link that opens them.
const unfoldedTasks = 3

// unfolded picks the tasks of a page of the history (0 the newest) that show
// their steps: the first keep, and any still queued or running, as their
// live updates show them. The service reads the steps of these only.
func unfolded(keep int) func(int, *deployment.Task) bool {
	return func(i int, t *deployment.Task) bool { return i < keep || !t.Ended() }
}

// foldSteps folds the tasks that pick leaves out: each shows how many steps
// it has and a link that opens them instead (views.TaskProps.Folded).
func foldSteps(props []views.TaskProps, tasks []deployment.Task, pick func(int, *deployment.Task) bool) {
	for i := range props {
		if !pick(i, &tasks[i]) {
			props[i].Folded, props[i].StepCount, props[i].Steps = true, tasks[i].StepCount, nil
		}
	}
}

// busyKind is the kind of the task that holds the deployment, "" when none
// does; views.BusyElsewhere when the holder is not on the page.
func busyKind(d *deployment.Deployment, tasks []deployment.Task) string {
	if !d.Busy {
		return ""
	}
	for _, t := range tasks {
		if t.Status == executor.TaskRunning {
			return t.Kind
		}
	}
	return views.BusyElsewhere
}

// viewer is who looks at a fragment rendered without the layout; unlike
// page, it leaves the flash messages for the next page.
func viewer(c echo.Context) views.Viewer {
	u := httpx.CurrentUser(c)
	return views.Viewer{CanChange: u != nil && u.Role.AtLeast(auth.Operator), IsAdmin: u != nil && u.Role == auth.Admin, CSRFToken: httpx.Session(c).CSRF}
}

// parseID reads a positive id from a path or query parameter.
func parseID(text string) (int64, bool) {
	id, err := strconv.ParseInt(text, 10, 64)
	return id, err == nil && id > 0
}
