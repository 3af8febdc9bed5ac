package drivers

import (
	"fmt"
	"net/mail"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/util/validation"
)

var (
	// parameterName is the form of parameter and prompt names.
	parameterName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	// actionName is the form of action names.
	actionName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	// actionFunction is the form of an action's module:function.
	actionFunction = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*):([A-Za-z_][A-Za-z0-9_]*)$`)
	// urlScheme is the form of a service's URL scheme.
	urlScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)
)

// validate checks every rule of the contract that the decoder cannot, adding problems to rep.
func validate(rep *report, d *Driver) {
	if d.APIVersion != "" && d.APIVersion != APIVersion {
		rep.add("apiVersion", "%q is not supported; use %s", d.APIVersion, APIVersion)
	}
	if d.Kind != "" && d.Kind != KindDriver {
		rep.add("kind", "%q is not supported; use %s", d.Kind, KindDriver)
	}
	checkDNSLabel(rep, "metadata.name", d.Metadata.Name)
	s := &d.Spec
	if s.Version != "" {
		if _, err := semver.StrictNewVersion(s.Version); err != nil {
			rep.add("spec.version", "%q is not a strict semantic version; write MAJOR.MINOR.PATCH such as 2.1.0 or 2.1.0-rc.1", s.Version)
		}
	}
	if s.SupportedVersions != "" {
		if _, err := semver.NewConstraint(s.SupportedVersions); err != nil {
			rep.add("spec.supported_versions", "%q is not a semver constraint (%v); write for example \">=14, <18\" or \"^3 || ^4\"", s.SupportedVersions, err)
		}
	}
	validateInfo(rep, &s.Info)
	validateChart(rep, "spec.helm.main", &s.Helm.Main)
	validateComponents(rep, s.Components)
	validateParameters(rep, "spec.parameters", s.Parameters)
	validateServices(rep, s.Services, s.Components)
	validateActions(rep, s.Actions)
}

// validateInfo checks spec.info.
func validateInfo(rep *report, info *Info) {
	if info.Icon != "" {
		if strings.Contains(info.Icon, "://") {
			checkURL(rep, "spec.info.icon", info.Icon, "https")
		} else {
			checkBundlePath(rep, "spec.info.icon", info.Icon)
		}
	}
	for i, l := range info.Links {
		checkURL(rep, indexPath("spec.info.links", i)+".url", l.URL, "http", "https")
	}
	for i, a := range info.Authors {
		p := indexPath("spec.info.authors", i)
		if a.Email != "" {
			if addr, err := mail.ParseAddress(a.Email); err != nil || addr.Address != a.Email {
				rep.add(p+".email", "%q is not an e-mail address; write it as name@example.com", a.Email)
			}
		}
		if a.URL != "" {
			checkURL(rep, p+".url", a.URL, "http", "https")
		}
	}
}

// validateChart checks a chart reference; bundle-relative charts are loaded by LoadBundle.
func validateChart(rep *report, p string, c *ChartRef) {
	switch kind := chartLocationKind(c.Location); kind {
	case "":
	case locationLocal:
		checkBundlePath(rep, p+".location", c.Location)
	case locationOCI, locationRepo:
		u, err := url.Parse(c.Location)
		if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			rep.add(p+".location", "%q is not a valid %s URL; write %s", c.Location, kind, locationForms)
		} else if kind == locationOCI && strings.Trim(u.Path, "/") == "" {
			rep.add(p+".location", "%q names no repository; write oci://host/repository/chart", c.Location)
		}
		if kind == locationRepo && c.Chart == "" {
			rep.add(p+".chart", "is required for an https:// chart repository; give the chart's name in the repository")
		}
	default:
		rep.add(p+".location", "%q is not a chart location; write %s", c.Location, locationForms)
	}
	if c.Chart != "" {
		if errs := validation.IsDNS1123Subdomain(c.Chart); len(errs) > 0 || strings.Contains(c.Chart, "/") {
			rep.add(p+".chart", "%q is not a chart name; use lower-case letters, digits, '-' and '.'", c.Chart)
		}
	}
	if c.Version != "" {
		if _, err := semver.StrictNewVersion(strings.TrimPrefix(c.Version, "v")); err != nil {
			rep.add(p+".version", "%q is not an exact chart version; write one version such as 15.5.0, not a range", c.Version)
		}
	}
	validateChartDigest(rep, p+".digest", c)
}

// chartDigestPattern is the form of spec.helm.main.digest.
var chartDigestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// validateChartDigest checks the digest of a remote chart; a chart inside the bundle has none.
func validateChartDigest(rep *report, p string, c *ChartRef) {
	switch {
	case c.Digest == "":
	case chartLocationKind(c.Location) == locationLocal:
		rep.add(p, "applies to remote charts only; the bundle's own digest covers the chart at %s, so remove digest", c.Location)
	case !chartDigestPattern.MatchString(c.Digest):
		rep.add(p, "%q is not a chart digest; write sha256: and the 64 lower-case hex digits that `sha256sum chart.tgz` prints", c.Digest)
	}
}

// The kinds of chart location.
const (
	locationLocal = "bundle path"
	locationOCI   = "oci://"
	locationRepo  = "https://"
)

// locationForms tells authors which chart locations exist.
const locationForms = "./path inside the bundle, oci://host/repository/chart or https://repository-url"

// chartLocationKind classifies a chart location; "" for an empty one and "?" for an unknown form.
func chartLocationKind(loc string) string {
	switch {
	case loc == "":
		return ""
	case strings.HasPrefix(loc, "./"):
		return locationLocal
	case strings.HasPrefix(loc, "oci://"):
		return locationOCI
	case strings.HasPrefix(loc, "https://"):
		return locationRepo
	}
	return "?"
}

// validateComponents checks spec.components.
func validateComponents(rep *report, comps []Component) {
	seen := map[string]int{}
	for i, c := range comps {
		p := indexPath("spec.components", i)
		checkDNSLabel(rep, p+".name", c.Name)
		checkUnique(rep, seen, p+".name", c.Name, i, "spec.components")
		validateSelector(rep, p+".selector", c.Selector)
		if r := c.Defaults.Replicas; r != nil && *r < 0 {
			rep.add(p+".defaults.replicas", "is %d; a replica count must be 0 or more", *r)
		}
	}
}

// validateSelector checks a label selector.
func validateSelector(rep *report, p string, s LabelSelector) {
	if _, given := rep.positions[p]; !given {
		return
	}
	if len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 {
		rep.add(p, "selects nothing; give matchLabels or matchExpressions")
	}
	for k, v := range s.MatchLabels {
		kp := childPath(p+".matchLabels", k)
		checkLabelKey(rep, kp, k)
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			rep.add(kp, "%q is not a valid label value: %s", v, strings.Join(errs, "; "))
		}
	}
	for i, e := range s.MatchExpressions {
		ep := indexPath(p+".matchExpressions", i)
		if e.Key != "" {
			checkLabelKey(rep, ep+".key", e.Key)
		}
		if e.Operator != "" && checkEnum(rep, ep+".operator", string(e.Operator), selectorOperators) {
			needsValues := e.Operator == OperatorIn || e.Operator == OperatorNotIn
			if needsValues && len(e.Values) == 0 {
				rep.add(ep+".values", "is required with operator %s; list at least one value", e.Operator)
			}
			if !needsValues && len(e.Values) > 0 {
				rep.add(ep+".values", "must be empty with operator %s", e.Operator)
			}
		}
		for j, v := range e.Values {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				rep.add(indexPath(ep+".values", j), "%q is not a valid label value: %s", v, strings.Join(errs, "; "))
			}
		}
	}
}

// validateServices checks spec.services against the declared components.
func validateServices(rep *report, svcs []Service, comps []Component) {
	names := map[string]bool{}
	for _, c := range comps {
		names[c.Name] = true
	}
	seen := map[string]int{}
	for i, s := range svcs {
		p := indexPath("spec.services", i)
		checkDNSLabel(rep, p+".name", s.Name)
		checkUnique(rep, seen, p+".name", s.Name, i, "spec.services")
		if s.Component != "" && !names[s.Component] {
			rep.add(p+".component", "%q is not a component of this driver; declare it in spec.components%s", s.Component, suggest(s.Component, keys(names)))
		}
		if _, given := rep.positions[p+".port"]; given && (s.Port < 1 || s.Port > 65535) && !rep.reported(p+".port") {
			rep.add(p+".port", "%d is not a port number; use 1 to 65535", s.Port)
		}
		if s.Protocol != "" {
			checkEnum(rep, p+".protocol", string(s.Protocol), protocols)
		}
		if s.Scheme != "" && !urlScheme.MatchString(s.Scheme) {
			rep.add(p+".scheme", "%q is not a URL scheme; use lower-case letters such as http or postgres", s.Scheme)
		}
		if s.Path != "" {
			if s.Scheme != "http" && s.Scheme != "https" {
				rep.add(p+".path", "is only allowed with scheme http or https")
			} else if !strings.HasPrefix(s.Path, "/") {
				rep.add(p+".path", "%q must start with /", s.Path)
			}
		}
	}
}

// validateActions checks spec.actions.
func validateActions(rep *report, actions []Action) {
	seen := map[string]int{}
	for i, a := range actions {
		p := indexPath("spec.actions", i)
		if a.Name != "" && !actionName.MatchString(a.Name) {
			rep.add(p+".name", "%q is not an action name; use lower-case letters, digits, '_' and '-', starting with a letter", a.Name)
		}
		checkUnique(rep, seen, p+".name", a.Name, i, "spec.actions")
		if a.Hook != "" {
			checkEnum(rep, p+".hook", string(a.Hook), hooks)
		}
		if a.Mode != "" {
			checkEnum(rep, p+".mode", string(a.Mode), modes)
		}
		if a.Function != "" && !actionFunction.MatchString(a.Function) {
			rep.add(p+".function", "%q is not module:function; write for example actions:backup", a.Function)
		}
		if a.Timeout != "" {
			switch t, err := time.ParseDuration(a.Timeout); {
			case err != nil || t <= 0:
				rep.add(p+".timeout", "%q is not a positive Go duration; write for example 90s, 30m or 1h30m", a.Timeout)
			case t > MaxTimeout:
				rep.add(p+".timeout", "%q is longer than the 24h an action may run (MaxTimeout); split the work or shorten it", a.Timeout)
			}
		}
		validateParameters(rep, p+".prompts", a.Prompts)
	}
	for i := range actions {
		validateArtefacts(rep, indexPath("spec.actions", i), &actions[i], actions)
	}
}

// validateArtefacts checks an action's artefacts against the prune action
// it names (Artefacts): both manual, the prune one taking the retention.
func validateArtefacts(rep *report, p string, a *Action, actions []Action) {
	name := a.Artefacts.Prune
	if name == "" {
		return
	}
	p += ".artefacts.prune"
	if a.Hook != HookManual {
		rep.add(p, "only manual actions may declare artefacts (this one's hook is %s): schedules run manual actions", a.Hook)
	}
	var prune *Action
	names := make([]string, 0, len(actions))
	for i := range actions {
		names = append(names, actions[i].Name)
		if actions[i].Name == name {
			prune = &actions[i]
		}
	}
	switch {
	case name == a.Name:
		rep.add(p, "%q is this action; name another manual action that deletes old artefacts", name)
		return
	case prune == nil:
		rep.add(p, "%q is not an action of this driver; declare it in spec.actions%s", name, suggest(name, names))
		return
	case prune.Hook != HookManual:
		rep.add(p, "%q is a %s action; the prune action must be manual", name, prune.Hook)
	}
	var missing []string
	for _, keep := range []string{PromptKeepLast, PromptKeepDays} {
		if q := prune.Prompt(keep); q == nil || q.Type != TypeInteger || (q.Min != nil && *q.Min > 0) {
			missing = append(missing, keep)
		}
	}
	if len(missing) > 0 {
		rep.add(p, "%q must take the integer prompt(s) %s, allowing 0 (a rule not set); the retention is passed in them", name, strings.Join(missing, " and "))
	}
	for _, q := range prune.Prompts {
		shared := a.Prompt(q.Name)
		if q.Name == PromptKeepLast || q.Name == PromptKeepDays || q.Default != nil || !q.Required || (shared != nil && (shared.Type == TypeSecret) == (q.Type == TypeSecret)) {
			continue
		}
		rep.add(p, "%q requires the prompt %s without a default, which a scheduled prune cannot give; add a default or the same prompt (secret if it is secret) to %q", name, q.Name, a.Name)
	}
}

// checkEnum reports a value outside allowed and says whether it was allowed.
func checkEnum(rep *report, p, value string, allowed []string) bool {
	if slices.Contains(allowed, value) {
		return true
	}
	rep.add(p, "%q is not allowed; use one of: %s", value, strings.Join(allowed, ", "))
	return false
}

// checkUnique reports a name that an earlier list item already uses.
func checkUnique(rep *report, seen map[string]int, p, name string, i int, list string) {
	if name == "" {
		return
	}
	if first, dup := seen[name]; dup {
		rep.add(p, "%q is already the name of %s; names must be unique", name, indexPath(list, first))
		return
	}
	seen[name] = i
}

// checkDNSLabel reports a name that is not a DNS-1123 label.
func checkDNSLabel(rep *report, p, name string) {
	if name == "" {
		return
	}
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		rep.add(p, "%q is not a DNS-1123 label: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit", name)
	}
}

// checkLabelKey reports a string that is not a Kubernetes label key.
func checkLabelKey(rep *report, p, key string) {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		rep.add(p, "%q is not a valid label key: %s", key, strings.Join(errs, "; "))
	}
}

// checkURL reports a URL whose scheme is not one of schemes or that has no host.
func checkURL(rep *report, p, raw string, schemes ...string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !slices.Contains(schemes, u.Scheme) {
		rep.add(p, "%q is not an absolute %s URL", raw, strings.Join(schemes, " or "))
	}
}

// checkBundlePath reports a path that is not relative to the bundle or that leaves it.
func checkBundlePath(rep *report, p, file string) {
	clean := path.Clean(strings.TrimPrefix(file, "./"))
	if strings.Contains(file, "\\") || path.IsAbs(file) || clean == ".." || strings.HasPrefix(clean, "../") || clean == "." {
		rep.add(p, "%q is not a path inside the bundle; write it relative to the folder of driver.styrmin.yml, such as ./chart or icon.svg", file)
	}
}

// keys lists the keys of a set.
func keys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}

// describeValue quotes strings and prints other values as they are, for messages.
func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}
