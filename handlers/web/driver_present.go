package web

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/views"
)

// driverShowProps turns a stored driver version into what the driver page
// shows of it, everything but the layout and the version picker.
func driverShowProps(v *catalog.Version, md *views.Markdown) (views.DriverShowProps, error) {
	d := v.Driver
	description, err := md.HTML(d.Spec.Info.Description)
	if err != nil {
		return views.DriverShowProps{}, err
	}
	readme, err := md.HTML(v.Readme)
	if err != nil {
		return views.DriverShowProps{}, err
	}
	actions, err := viewActions(d.Spec.Actions, md)
	if err != nil {
		return views.DriverShowProps{}, err
	}
	groups, err := viewParameterGroups(d.Spec.Parameters, md)
	if err != nil {
		return views.DriverShowProps{}, err
	}
	p := views.DriverShowProps{
		Name:              d.Metadata.Name,
		Version:           d.Spec.Version,
		Title:             d.Title(),
		Summary:           d.Summary(),
		Labels:            viewLabels(catalog.Labels([]catalog.Entry{{Labels: d.Metadata.Labels}})),
		Description:       description,
		Readme:            readme,
		License:           d.Spec.Info.License,
		SupportedVersions: d.Spec.SupportedVersions,
		ChartLocation:     d.Spec.Helm.Main.Location,
		ChartName:         d.Spec.Helm.Main.Chart,
		ChartVersion:      d.Spec.Helm.Main.Version,
		ParameterGroups:   groups,
		Components:        viewComponents(d.Spec.Components),
		Services:          viewServices(d.Spec.Services),
		Actions:           actions,
		Digest:            v.Digest,
		ImportedAt:        v.CreatedAt.UTC().Format("2 Jan 2006 15:04 UTC"),
		ImportedBy:        importedBy(v.CreatedBy),
		Source:            v.Origin.Source,
		SignedBy:          v.Origin.SignedBy,
	}
	if p.Source != "" {
		p.ImportedBy = "" // the Source fact says where from
	}
	if v.HasIcon {
		p.IconURL = iconURL(p.Name, p.Version)
	}
	if base, _, dev := catalog.DevBuildOf(p.Version); dev {
		p.DevBuildOf = base
	}
	for _, l := range d.Spec.Info.Links {
		p.Links = append(p.Links, views.DriverLink{Title: l.Title, URL: l.URL})
	}
	for _, a := range d.Spec.Info.Authors {
		p.Authors = append(p.Authors, views.DriverAuthor{Name: a.Name, Email: a.Email, URL: a.URL})
	}
	return p, nil
}

// viewParameterGroups groups parameters for the page: ungrouped first, then
// each group in the order it first appears.
func viewParameterGroups(params []drivers.Parameter, md *views.Markdown) ([]views.DriverParameterGroup, error) {
	var groups []views.DriverParameterGroup
	for _, group := range drivers.Groups(params) {
		g := views.DriverParameterGroup{Name: group.Name}
		for _, prm := range group.Parameters {
			vp, err := viewParameter(prm, md)
			if err != nil {
				return nil, err
			}
			g.Parameters = append(g.Parameters, vp)
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// viewParameter describes one parameter or prompt; a secret's default is never included.
func viewParameter(prm drivers.Parameter, md *views.Markdown) (views.DriverParameter, error) {
	desc, err := md.HTML(prm.Description)
	if err != nil {
		return views.DriverParameter{}, err
	}
	out := views.DriverParameter{
		Name:        prm.Name,
		Title:       cmp.Or(prm.Title, prm.Name),
		Description: desc,
		Type:        string(prm.Type),
		Secret:      prm.Type == drivers.TypeSecret,
		Required:    prm.Required,
		Immutable:   prm.Immutable,
		Constraints: constraints(prm),
		Pattern:     prm.Pattern,
	}
	if !out.Secret && prm.Default != nil {
		out.HasDefault = true
		out.Default = scalarText(prm.Default)
	}
	return out, nil
}

// constraints lists a parameter's limits in words, except its pattern.
func constraints(prm drivers.Parameter) []string {
	var out []string
	switch {
	case prm.MinLength != nil && prm.MaxLength != nil:
		out = append(out, fmt.Sprintf("%d to %d characters", *prm.MinLength, *prm.MaxLength))
	case prm.MinLength != nil:
		out = append(out, fmt.Sprintf("at least %d characters", *prm.MinLength))
	case prm.MaxLength != nil:
		out = append(out, fmt.Sprintf("at most %d characters", *prm.MaxLength))
	}
	switch {
	case prm.Min != nil && prm.Max != nil:
		out = append(out, fmt.Sprintf("from %s to %s", number(*prm.Min), number(*prm.Max)))
	case prm.Min != nil:
		out = append(out, "at least "+number(*prm.Min))
	case prm.Max != nil:
		out = append(out, "at most "+number(*prm.Max))
	}
	if len(prm.Choices) > 0 {
		choices := make([]string, len(prm.Choices))
		for i, c := range prm.Choices {
			choices[i] = scalarText(c)
		}
		out = append(out, "one of: "+strings.Join(choices, ", "))
	}
	return out
}

// number formats a limit without trailing zeros.
func number(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// scalarText formats a default or choice value.
func scalarText(v any) string {
	if f, ok := v.(float64); ok {
		return number(f)
	}
	return fmt.Sprint(v)
}

// viewComponents describes the components with their selectors in words.
func viewComponents(comps []drivers.Component) []views.DriverComponent {
	out := make([]views.DriverComponent, 0, len(comps))
	for _, c := range comps {
		vc := views.DriverComponent{Name: c.Name, Title: cmp.Or(c.Title, c.Name), Replicas: "as before it was stopped"}
		if c.Defaults.Replicas != nil {
			vc.Replicas = strconv.Itoa(*c.Defaults.Replicas)
		}
		for _, k := range slices.Sorted(maps.Keys(c.Selector.MatchLabels)) {
			vc.Selector = append(vc.Selector, k+"="+c.Selector.MatchLabels[k])
		}
		for _, e := range c.Selector.MatchExpressions {
			expr := e.Key + " " + string(e.Operator)
			if len(e.Values) > 0 {
				expr += " (" + strings.Join(e.Values, ", ") + ")"
			}
			vc.Selector = append(vc.Selector, expr)
		}
		out = append(out, vc)
	}
	return out
}

// viewServices describes the services.
func viewServices(svcs []drivers.Service) []views.DriverService {
	out := make([]views.DriverService, 0, len(svcs))
	for _, s := range svcs {
		out = append(out, views.DriverService{
			Name: s.Name, Title: cmp.Or(s.Title, s.Name), Component: s.Component, Port: s.Port,
			Protocol: string(s.EffectiveProtocol()), Scheme: s.Scheme, Path: s.Path,
		})
	}
	return out
}

// viewActions describes the actions with their prompts.
func viewActions(actions []drivers.Action, md *views.Markdown) ([]views.DriverAction, error) {
	out := make([]views.DriverAction, 0, len(actions))
	for _, a := range actions {
		desc, err := md.HTML(a.Description)
		if err != nil {
			return nil, err
		}
		va := views.DriverAction{
			Name: a.Name, Title: cmp.Or(a.Title, a.Name), Description: desc, Hook: string(a.Hook),
			Mode: string(a.EffectiveMode()), Function: a.Function, Timeout: duration(a.TimeoutDuration()),
		}
		for _, prm := range a.Prompts {
			vp, err := viewParameter(prm, md)
			if err != nil {
				return nil, err
			}
			va.Prompts = append(va.Prompts, vp)
		}
		out = append(out, va)
	}
	return out, nil
}

// duration formats a timeout briefly: 30m rather than 30m0s.
func duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// importedBy says who imported a driver version, for the page.
func importedBy(by string) string {
	switch by {
	case "":
		return ""
	case catalog.ByBundled:
		return "shipped with Styrmin"
	default:
		return "by " + by
	}
}
