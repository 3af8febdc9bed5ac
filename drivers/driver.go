// Package drivers owns the driver.styrmin.yml v1 contract: its Go types, strict
// parsing with positions, validation, values rendering, bundle loading, lint, the
// JSON Schema and the generated Driver API reference.
//
// The doc comments of the types in this file are the reference: Reference and
// Schema read them from the embedded source, so they are written for driver
// authors, not for Go programmers.
package drivers

// APIVersion is the only apiVersion a driver file may declare.
const APIVersion = "styrmin.io/v1"

// KindDriver is the only kind a driver file may declare.
const KindDriver = "Driver"

// Driver is the content of a driver.styrmin.yml file: it tells Styrmin how to
// install, configure, operate and upgrade one application on Kubernetes.
type Driver struct {
	// Version of the file format. Must be `styrmin.io/v1`.
	APIVersion string `yaml:"apiVersion" jsonschema:"required,enum=styrmin.io/v1"`
	// Kind of document. Must be `Driver`.
	Kind string `yaml:"kind" jsonschema:"required,enum=Driver"`
	// Identity of the driver in the catalogue.
	Metadata Metadata `yaml:"metadata" jsonschema:"required"`
	// What the driver installs and how it is operated.
	Spec Spec `yaml:"spec" jsonschema:"required"`
}

// Metadata identifies a driver in the catalogue.
type Metadata struct {
	// Name of the driver: a DNS-1123 label (lower-case letters, digits and `-`, at most 63
	// characters, starting and ending with a letter or digit), unique in the catalogue.
	Name string `yaml:"name" jsonschema:"required,pattern=^[a-z0-9]([-a-z0-9]*[a-z0-9])?$,maxLength=63"`
	// Free-form labels (string keys and values) used to filter the catalogue, such as `category: database`.
	Labels map[string]string `yaml:"labels,omitempty"`
}

// Spec describes what a driver installs and how it is operated.
type Spec struct {
	// The driver's own version: strict semantic version such as `2.1.0` or `2.1.0-rc.1` (no `v` prefix).
	// The catalogue keeps every version of a driver; a deployment pins one driver version.
	Version string `yaml:"version" jsonschema:"required"`
	// Semantic version constraint on the application versions this driver can install or upgrade
	// to, in Masterminds syntax: `>=14, <18`, `~16.2`, `^3 || ^4`.
	SupportedVersions string `yaml:"supported_versions" jsonschema:"required"`
	// What the catalogue shows about the driver.
	Info Info `yaml:"info,omitempty"`
	// The Helm chart that installs the application.
	Helm Helm `yaml:"helm" jsonschema:"required"`
	// Parts of the application (Deployments and StatefulSets of the release, selected by label)
	// that can be stopped, started and scaled.
	Components []Component `yaml:"components,omitempty"`
	// Typed inputs that users set when they install or reconfigure a deployment.
	Parameters []Parameter `yaml:"parameters,omitempty"`
	// Network endpoints the application offers, shown on the deployment page.
	Services []Service `yaml:"services,omitempty"`
	// Python functions run at lifecycle hooks or on demand.
	Actions []Action `yaml:"actions,omitempty"`
}

// Info is what the catalogue shows about a driver.
type Info struct {
	// Display name. Defaults to `metadata.name`.
	Title string `yaml:"title,omitempty"`
	// A path inside the bundle (such as `icon.svg`) or an `https://` URL. An icon in the bundle must
	// be SVG, PNG, JPEG or WebP (checked by content) and at most 256 KiB.
	Icon string `yaml:"icon,omitempty"`
	// Markdown. Its first paragraph is the summary shown in the catalogue.
	Description string `yaml:"description,omitempty"`
	// Links to documentation, source code or support.
	Links []Link `yaml:"links,omitempty"`
	// People or organisations that maintain the driver.
	Authors []Author `yaml:"authors,omitempty"`
	// SPDX license identifier of the driver, such as `Apache-2.0`.
	License string `yaml:"license,omitempty"`
}

// Link is a titled link shown on the driver page.
type Link struct {
	// Text of the link.
	Title string `yaml:"title" jsonschema:"required"`
	// An `http://` or `https://` URL.
	URL string `yaml:"url" jsonschema:"required,format=uri"`
}

// Author is a person or organisation that maintains a driver.
type Author struct {
	// Name of the author.
	Name string `yaml:"name" jsonschema:"required"`
	// E-mail address.
	Email string `yaml:"email,omitempty" jsonschema:"format=email"`
	// An `http://` or `https://` URL, such as a home page.
	URL string `yaml:"url,omitempty" jsonschema:"format=uri"`
}

// Helm holds the Helm charts a driver installs.
type Helm struct {
	// The chart installed as the deployment's Helm release.
	Main ChartRef `yaml:"main" jsonschema:"required"`
}

// ChartRef points at a Helm chart and says how to fill its values.
type ChartRef struct {
	// Where the chart is: `./path` for a chart folder or `.tgz` archive inside the bundle,
	// `oci://host/repository/chart` for an OCI registry, or `https://host/path` for a chart
	// repository (then `chart` is required).
	Location string `yaml:"location" jsonschema:"required"`
	// Name of the chart in an `https://` repository. Required for `https://` locations; for the
	// other locations it is optional and, when set, must equal the chart's name.
	Chart string `yaml:"chart,omitempty"`
	// Exact chart version. For a chart inside the bundle it must equal the `version` of its Chart.yaml.
	Version string `yaml:"version" jsonschema:"required"`
	// SHA-256 digest of a remote chart's archive: `sha256:` followed by the 64 lower-case hex digits
	// that `sha256sum` prints for the `.tgz` (for an `oci://` chart, the digest of its chart layer).
	// Optional; when given, an import whose downloaded archive has another digest is refused. A
	// remote chart is downloaded once, when the driver is imported, and stored with it: deployments
	// never download it again. A chart inside the bundle takes no `digest` (the bundle's own digest
	// covers it).
	Digest string `yaml:"digest,omitempty" jsonschema:"pattern=^sha256:[0-9a-f]{64}$"`
	// Go text/template that renders the release's values; the output must be a YAML mapping (an
	// empty output means no values). Data: `.Parameters` (parameter name to typed value),
	// `.Version` (application version), `.Deployment.Name`, `.Deployment.Namespace`,
	// `.Deployment.Release`, `.Driver.Name`, `.Driver.Version`. Referring to a key that does not
	// exist is an error. Functions: see "Values template functions" below; none reads the
	// environment, files, the network or the clock.
	Values string `yaml:"values,omitempty"`
}

// Component is a part of the application that can be stopped, started and scaled.
type Component struct {
	// Identifier of the component, unique in the driver: a DNS-1123 label.
	Name string `yaml:"name" jsonschema:"required"`
	// Display name. Defaults to `name`.
	Title string `yaml:"title,omitempty"`
	// Kubernetes label selector that picks the release's Deployments and StatefulSets of this
	// component. At least one of `matchLabels` and `matchExpressions` is required.
	Selector LabelSelector `yaml:"selector" jsonschema:"required"`
	// Settings used when Styrmin operates the component.
	Defaults ComponentDefaults `yaml:"defaults,omitempty"`
}

// ComponentDefaults holds the settings used when Styrmin operates a component.
type ComponentDefaults struct {
	// Replica count that starting the component scales its workloads back to (0 or more). When
	// unset, a start restores the count the workloads had before they were stopped.
	Replicas *int `yaml:"replicas,omitempty" jsonschema:"minimum=0"`
}

// LabelSelector is a Kubernetes label selector; all its conditions must match.
type LabelSelector struct {
	// Labels a workload must carry with exactly these values.
	MatchLabels map[string]string `yaml:"matchLabels,omitempty"`
	// Set-based conditions on labels.
	MatchExpressions []LabelSelectorRequirement `yaml:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one set-based condition of a label selector.
type LabelSelectorRequirement struct {
	// Label key the condition applies to.
	Key string `yaml:"key" jsonschema:"required"`
	// How the label's value relates to `values`.
	Operator SelectorOperator `yaml:"operator" jsonschema:"required"`
	// Values for `In` and `NotIn` (at least one); must be empty for `Exists` and `DoesNotExist`.
	Values []string `yaml:"values,omitempty"`
}

// SelectorOperator relates a label to the values of a label selector requirement.
type SelectorOperator string

// The operators of a label selector requirement.
const (
	OperatorIn           SelectorOperator = "In"
	OperatorNotIn        SelectorOperator = "NotIn"
	OperatorExists       SelectorOperator = "Exists"
	OperatorDoesNotExist SelectorOperator = "DoesNotExist"
)

// Parameter is a typed input that users set for a deployment, or that an action prompts for.
type Parameter struct {
	// Identifier, unique in its list: lower-case letter first, then lower-case letters, digits and
	// `_` (`^[a-z][a-z0-9_]*$`). The values template reads it as `.Parameters.<name>`; an action
	// receives a prompt as the keyword argument `<name>`.
	Name string `yaml:"name" jsonschema:"required,pattern=^[a-z][a-z0-9_]*$"`
	// Label shown on the form. Defaults to `name`.
	Title string `yaml:"title,omitempty"`
	// Help text shown under the field on the form.
	Description string `yaml:"description,omitempty"`
	// Type of the value. `text` is a multi-line string; `secret` is a string that is never shown
	// again once saved, never logged, stored encrypted and redacted wherever it could surface.
	Type ParameterType `yaml:"type" jsonschema:"required"`
	// Value used when the user gives none. It must have the parameter's type and satisfy its
	// own constraints; for `enum` it must be one of `choices`.
	Default any `yaml:"default,omitempty"`
	// The user must give a value (or the default is used).
	Required bool `yaml:"required,omitempty" jsonschema:"default=false"`
	// The value may not change after the deployment is installed.
	Immutable bool `yaml:"immutable,omitempty" jsonschema:"default=false"`
	// Section of the form the field is shown in. Fields without a group come first.
	Group string `yaml:"group,omitempty"`
	// Minimum length in characters. Only for `string` and `secret`.
	MinLength *int `yaml:"min_length,omitempty" jsonschema:"minimum=0"`
	// Maximum length in characters. Only for `string`, `secret` and `text`.
	MaxLength *int `yaml:"max_length,omitempty" jsonschema:"minimum=0"`
	// Regular expression (Go RE2 syntax) the whole value must match; anchors are added when
	// missing. Only for `string` and `secret`.
	Pattern string `yaml:"pattern,omitempty" jsonschema:"format=regex"`
	// Smallest allowed value. Only for `integer` (then a whole number) and `number`.
	Min *float64 `yaml:"min,omitempty"`
	// Largest allowed value, at least `min`. Only for `integer` (then a whole number) and `number`.
	Max *float64 `yaml:"max,omitempty"`
	// Allowed values (strings, numbers or booleans), at least one, no duplicates. Required for
	// `enum`, not allowed for other types.
	Choices []any `yaml:"choices,omitempty"`
}

// ParameterType is the type of a parameter's value.
type ParameterType string

// The parameter types.
const (
	TypeString  ParameterType = "string"
	TypeText    ParameterType = "text"
	TypeInteger ParameterType = "integer"
	TypeNumber  ParameterType = "number"
	TypeBoolean ParameterType = "boolean"
	TypeEnum    ParameterType = "enum"
	TypeSecret  ParameterType = "secret"
)

// Service is a network endpoint that a component offers.
type Service struct {
	// Identifier, unique in the driver: a DNS-1123 label.
	Name string `yaml:"name" jsonschema:"required"`
	// Display name. Defaults to `name`.
	Title string `yaml:"title,omitempty"`
	// Name of the component (in `spec.components`) that serves the endpoint.
	Component string `yaml:"component" jsonschema:"required"`
	// Port number, 1 to 65535.
	Port int `yaml:"port" jsonschema:"required,minimum=1,maximum=65535"`
	// Transport protocol.
	Protocol Protocol `yaml:"protocol,omitempty" jsonschema:"default=TCP"`
	// URL scheme shown with the endpoint, such as `http`, `https`, `postgres` or `redis`
	// (lower-case letter first, then lower-case letters, digits, `+`, `-` and `.`).
	Scheme string `yaml:"scheme,omitempty" jsonschema:"pattern=^[a-z][a-z0-9+.-]*$"`
	// URL path starting with `/`, such as `/admin`. Only with the `http` and `https` schemes.
	Path string `yaml:"path,omitempty"`
}

// Protocol is the transport protocol of a service.
type Protocol string

// The service protocols.
const (
	ProtocolTCP Protocol = "TCP"
	ProtocolUDP Protocol = "UDP"
)

// Action is a Python function that Styrmin runs at a lifecycle hook or on a user's demand.
type Action struct {
	// Identifier, unique in the driver: a DNS-1123 label or a snake_case name (`^[a-z][a-z0-9_-]*$`).
	Name string `yaml:"name" jsonschema:"required,pattern=^[a-z][a-z0-9_-]*$"`
	// Display name. Defaults to `name`.
	Title string `yaml:"title,omitempty"`
	// Markdown shown on the action's form.
	Description string `yaml:"description,omitempty"`
	// When the action runs. Several actions may share a hook: they run in declaration order,
	// one hook step each. `manual` actions are run by a user from the deployment page.
	Hook Hook `yaml:"hook" jsonschema:"required"`
	// What a failure does. `blocking`: the hook step and its task fail and later steps do not
	// run (a failing `pre-upgrade` action prevents the upgrade). `best-effort`: the failure is
	// recorded on the hook step as a warning and the task goes on.
	Mode Mode `yaml:"mode,omitempty" jsonschema:"default=blocking"`
	// The Python function to call, as `module:function`. The module is relative to the bundle
	// root (`actions` is `actions.py` or `actions/__init__.py`; `pkg.mod` is `pkg/mod.py`) and
	// must define the function at its top level.
	Function string `yaml:"function" jsonschema:"required,pattern=^[A-Za-z_][A-Za-z0-9_]*([.][A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$"`
	// Longest run time, as a Go duration (`90s`, `30m`, `1h30m`), more than zero and at most
	// `24h`. A Job that the action runs with execute_commands never outlives it.
	Timeout string `yaml:"timeout,omitempty" jsonschema:"default=10m"`
	// Values asked from the user when the action runs (on the action's form for manual actions,
	// on the install, upgrade or delete form for hook actions), passed to the function as
	// keyword arguments. Same fields as `spec.parameters[]`.
	Prompts []Parameter `yaml:"prompts,omitempty"`
	// Says that each run of this `manual` action produces an artefact, such as a backup, and
	// names the action that deletes old ones. A run's result then names its artefact: an
	// object with `name` (a string) and `size_bytes` (an integer, or null when unknown). A
	// schedule of the action may keep the artefacts of its last N runs or of the last D days:
	// after each scheduled run that succeeds, Styrmin runs the prune action with that retention.
	Artefacts Artefacts `yaml:"artefacts,omitempty"`
}

// Artefacts names the action that prunes the artefacts of an action's runs.
type Artefacts struct {
	// Name of another `manual` action that deletes old artefacts. It must declare the integer
	// prompts `keep_last` (keep the newest N artefacts) and `keep_days` (keep those made in the
	// last D days), each allowing 0, which means that rule is not set; it deletes only the
	// artefacts that no set rule keeps. Styrmin passes both; the prompts it shares by name with
	// this action get the schedule's values, plain ones (for example `database`) and secret ones
	// (for example a storage password, when both declare it as `secret`); its other prompts may
	// not be required without a default. Its result may list the names of the artefacts it
	// deleted as `deleted` (a list of strings): the deployment's page then marks those pruned.
	Prune string `yaml:"prune" jsonschema:"required"`
}

// The prompts a prune action (Artefacts.Prune) takes: the retention of a schedule.
const (
	PromptKeepLast = "keep_last"
	PromptKeepDays = "keep_days"
)

// Hook is the moment of a deployment's life at which an action runs.
type Hook string

// The action hooks.
const (
	HookPreInstall  Hook = "pre-install"
	HookPostInstall Hook = "post-install"
	HookPreUpgrade  Hook = "pre-upgrade"
	HookPostUpgrade Hook = "post-upgrade"
	HookPreDelete   Hook = "pre-delete"
	HookPostDelete  Hook = "post-delete"
	HookManual      Hook = "manual"
)

// Mode says what a failing action does to its task.
type Mode string

// The action modes.
const (
	ModeBlocking   Mode = "blocking"
	ModeBestEffort Mode = "best-effort"
)
