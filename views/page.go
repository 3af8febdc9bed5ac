package views

import "encoding/json"

// Page is what the layout needs from every page: its title, the signed-in
// user, the CSRF token and the messages to show once.
type Page struct {
	// Title is shown in the browser tab, before the product name.
	Title string
	// Nav marks the navigation item of the current section (NavDrivers, NavUsers, ...).
	Nav string
	// User is the signed-in user, nil for an anonymous visitor.
	User *User
	// CSRFToken goes into every form and into the htmx request headers.
	CSRFToken string
	// Flashes are one-time messages, such as "User alice created".
	Flashes []Flash
}

// User is the signed-in user as the layout shows it.
type User struct {
	ID       int64
	Username string
	// Role is "admin", "operator", "read-only" or "member".
	Role string
}

// IsAdmin reports whether the user may see the admin pages.
func (u *User) IsAdmin() bool { return u != nil && u.Role == "admin" }

// ReadsEverything reports whether the user reads every team's deployments,
// tasks and audit entries (read-only or more), not only their teams'.
func (u *User) ReadsEverything() bool { return u != nil && u.Role != "member" }

// CanChange reports whether the user may make changes (operator or admin);
// pages hide buttons that would only be refused.
func (u *User) CanChange() bool { return u != nil && (u.Role == "admin" || u.Role == "operator") }

// Navigation sections for Page.Nav.
const (
	NavDrivers     = "drivers"
	NavDeployments = "deployments"
	NavTasks       = "tasks"
	NavUsers       = "users"
	NavSettings    = "settings"
	NavNamespaces  = "namespaces"
	NavWebhooks    = "webhooks"
	NavAudit       = "audit"
	NavTeams       = "teams"
)

// Flash kinds.
const (
	FlashSuccess = "success"
	FlashError   = "error"
	FlashInfo    = "info"
)

// Flash is a one-time message shown at the top of the next page.
type Flash struct {
	// Kind is FlashSuccess, FlashError or FlashInfo.
	Kind    string
	Message string
}

// CSRFField is the form field that carries the CSRF token.
const CSRFField = "_csrf"

// CSRFHeader is the request header that carries the CSRF token on htmx requests.
const CSRFHeader = "X-CSRF-Token"

// htmxConfig swaps 4xx/5xx responses too (form errors and error fragments
// choose their own target), keeps htmx off eval and inline styles so a strict
// Content-Security-Policy holds, and only sends requests to this server.
const htmxConfig = `{"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"[45]..","swap":true,"error":true}],"allowEval":false,"allowScriptTags":false,"includeIndicatorStyles":false,"selfRequestsOnly":true}`

// csrfHeaders is the hx-headers value that adds the CSRF token to every htmx request.
func csrfHeaders(token string) string {
	b, err := json.Marshal(map[string]string{CSRFHeader: token})
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return string(b)
}
