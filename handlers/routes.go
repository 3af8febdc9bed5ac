package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/web"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/views"
)

// route is one line of the permission table.
type route struct {
	method string
	path   string
	// least is the least role allowed; auth.Anonymous means everyone.
	least   auth.Role
	handler echo.HandlerFunc
	// bare routes (health checks, static files) skip the session, the role check and CSRF.
	bare bool
	// actionToken routes are the action primitives: no session, no CSRF; an
	// action token (requireActionToken) and nothing else.
	actionToken bool
	// api routes are operations of the REST API (package api): no session, no
	// CSRF; a personal API token, whose user's role is checked against least.
	api bool
	// maxBody bounds an api route's request body.
	maxBody int64
	// change names the state change of a route that is not a GET: the audit
	// log's action and target (auditChanges).
	change change
}

// routes is THE permission table: every route the server has, and who may call
// it. Each GET route also answers HEAD (see methodsOf). To add a page, add a
// line here; the REST API's lines come from api/openapi.yaml (apiRoutes), so
// an operation's role is its x-styrmin-role there. The route-walking test in
// routes_test.go checks every registered route against this table for every
// role. A handler's new dependency goes into Deps and into app.New, which
// builds every server, the tests' included.
//
// Rules the test enforces: state-changing methods (anything but GET/HEAD) need
// at least operator, except those that change only the caller's own
// credentials: signing in (anyone), signing out, ending one of one's own
// sessions, changing one's own password, and creating and revoking one's
// own API tokens (any signed-in user; the token store lets only admins
// revoke another user's token).
func routes(d Deps) []route {
	md := views.NewMarkdown()
	grids, pages, forms := web.NewDriverGrids(web.DriverGridCacheBytes), web.NewDriverPages(web.DriverPageCacheBytes), web.NewActionForms(web.ActionFormCacheBytes)
	if d.Caches != nil {
		d.Caches.WatchCache("driver_grids", grids.Stats)
		d.Caches.WatchCache("driver_pages", pages.Stats)
		d.Caches.WatchCache("action_forms", forms.Stats)
	}
	return append([]route{
		{method: http.MethodGet, path: "/healthz", least: auth.Anonymous, handler: healthz, bare: true},
		{method: http.MethodGet, path: "/readyz", least: auth.Anonymous, handler: readyz(d.Ready, d.Logger), bare: true},
		{method: http.MethodGet, path: "/static/*", least: auth.Anonymous, handler: web.StaticFiles(), bare: true},
		{method: http.MethodGet, path: action.Prefix + "openapi.json", least: auth.Anonymous, handler: action.Document(), bare: true},

		{method: http.MethodGet, path: "/signin", least: auth.Anonymous, handler: web.SigninShow(d.SSO)},
		{method: http.MethodPost, path: "/signin", least: auth.Anonymous, handler: web.SigninSubmit(d.Users, d.Sessions, d.SSO), change: change{action: audit.ActionSignin, target: audit.TargetUser, form: "username"}},
		{method: http.MethodGet, path: sso.StartPath, least: auth.Anonymous, handler: web.SigninOIDCStart(d.SSO)},
		// The provider's answer is a GET that signs in: the one GET with an audit action.
		{method: http.MethodGet, path: sso.CallbackPath, least: auth.Anonymous, handler: web.SigninOIDCCallback(d.SSO, d.Users, d.Sessions, d.Teams), change: changes(audit.ActionSignin, audit.TargetUser)},
		{method: http.MethodPost, path: "/signout", least: auth.Member, handler: web.SignoutSubmit(d.Sessions, d.SSO), change: changes(audit.ActionSignout, audit.TargetSession)},
		{method: http.MethodGet, path: "/account/sessions", least: auth.Member, handler: web.SessionList(d.Sessions)},
		{method: http.MethodPost, path: "/account/sessions/:id/end", least: auth.Member, handler: web.SessionEnd(d.Sessions), change: changes(audit.ActionSessionEnd, audit.TargetSession)},
		{method: http.MethodGet, path: "/account/password", least: auth.Member, handler: web.AccountPasswordShow()},
		{method: http.MethodPost, path: "/account/password", least: auth.Member, handler: web.AccountPasswordSubmit(d.Users, d.Sessions), change: changes(audit.ActionPasswordChange, audit.TargetUser)},
		{method: http.MethodGet, path: "/account/tokens", least: auth.Member, handler: web.TokenList(d.APITokens, d.Teams)},
		{method: http.MethodPost, path: "/account/tokens", least: auth.Member, handler: web.TokenCreate(d.APITokens, d.Teams), change: change{action: audit.ActionTokenCreate, target: audit.TargetToken, form: "name"}},
		{method: http.MethodPost, path: "/account/tokens/:id/revoke", least: auth.Member, handler: web.TokenRevoke(d.APITokens), change: changes(audit.ActionTokenRevoke, audit.TargetToken)},

		{method: http.MethodGet, path: "/", least: auth.Member, handler: web.HomeShow()},

		{method: http.MethodGet, path: "/drivers", least: auth.Member, handler: web.DriverList(d.Drivers, grids, d.Teams)},
		{method: http.MethodGet, path: "/drivers/upload", least: auth.Admin, handler: web.DriverUploadShow()},
		{method: http.MethodPost, path: "/drivers/upload", least: auth.Admin, handler: web.DriverUploadSubmit(d.Drivers), change: changes(audit.ActionDriverUpload, audit.TargetDriver)},
		{method: http.MethodGet, path: "/drivers/:name", least: auth.Member, handler: web.DriverShow(d.Drivers, views.NewMarkdown(), pages)},
		{method: http.MethodGet, path: "/drivers/:name/:version/icon", least: auth.Member, handler: web.DriverIcon(d.Drivers)},
		{method: http.MethodPost, path: "/drivers/:name/:version/permissions/approve", least: auth.Admin, handler: web.DriverPermissionsApprove(d.Drivers), change: changes(audit.ActionDriverApprovePermissions, audit.TargetDriver)},
		{method: http.MethodGet, path: "/drivers/:name/deploy", least: auth.Operator, handler: web.DeploymentInstallShow(d.Deployments, d.Drivers, d.Teams, md)},
		{method: http.MethodPost, path: "/drivers/:name/deploy", least: auth.Operator, handler: web.DeploymentInstallSubmit(d.Deployments, d.Drivers, d.Teams, md), change: change{action: audit.ActionDeploymentInstall, target: audit.TargetDeployment, form: "name"}},

		{method: http.MethodGet, path: "/sources", least: auth.Member, handler: web.SourceList(d.Sources)},
		{method: http.MethodPost, path: "/sources", least: auth.Admin, handler: web.SourceAdd(d.Sources), change: change{action: audit.ActionSourceCreate, target: audit.TargetSource, form: "name"}},
		{method: http.MethodPost, path: "/sources/:name/sync", least: auth.Admin, handler: web.SourceChange(d.Sources, web.Sources.RequestSync, "A sync of %s is requested: a worker reads its new tags within 15 seconds."), change: changes(audit.ActionSourceSync, audit.TargetSource)},
		{method: http.MethodPost, path: "/sources/:name/update", least: auth.Admin, handler: web.SourceUpdate(d.Sources), change: changes(audit.ActionSourceUpdate, audit.TargetSource)},
		{method: http.MethodPost, path: "/sources/:name/delete", least: auth.Admin, handler: web.SourceChange(d.Sources, web.Sources.Delete, "The source %s is deleted; the versions it imported stay in the catalogue."), change: changes(audit.ActionSourceDelete, audit.TargetSource)},

		{method: http.MethodGet, path: "/deployments", least: auth.Member, handler: web.DeploymentList(d.Deployments, d.Drivers, d.Teams)},
		{method: http.MethodGet, path: "/deployments/:name", least: auth.ReadOnly, handler: web.DeploymentShow(d.Deployments, d.Schedules, forms, d.SimulatedCluster, md, d.Teams)},
		{method: http.MethodGet, path: "/deployments/:name/health", least: auth.ReadOnly, handler: web.DeploymentHealth(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/pods/:pod/logs", least: auth.ReadOnly, handler: web.PodLogShow(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/drift", least: auth.ReadOnly, handler: web.DeploymentDrift(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/upgrade", least: auth.Operator, handler: web.DeploymentUpgradeShow(d.Deployments, d.Drivers, md)},
		{method: http.MethodPost, path: "/deployments/:name/upgrade/review", least: auth.Operator, handler: web.DeploymentUpgradeReview(d.Deployments, d.Drivers, md), change: changes(audit.ActionDeploymentUpgradeReview, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/upgrade/edit", least: auth.Operator, handler: web.DeploymentUpgradeEdit(d.Deployments, d.Drivers, md), change: changes(audit.ActionDeploymentUpgradeEdit, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/upgrade", least: auth.Operator, handler: web.DeploymentUpgradeConfirm(d.Deployments), change: changes(audit.ActionDeploymentUpgrade, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/rollback", least: auth.Operator, handler: web.DeploymentRollback(d.Deployments), change: changes(audit.ActionDeploymentRollback, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/reconcile", least: auth.Operator, handler: web.DeploymentReconcile(d.Deployments), change: changes(audit.ActionDeploymentReconcile, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/drift/accept", least: auth.Operator, handler: web.DeploymentDriftAccept(d.Deployments), change: changes(audit.ActionDeploymentDriftAccept, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/actions/:action", least: auth.Operator, handler: web.DeploymentActionRun(d.Deployments), change: changes(audit.ActionDeploymentAction, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/schedules", least: auth.Operator, handler: web.ScheduleCreate(d.Schedules), change: changes(audit.ActionScheduleCreate, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/schedules/:id/pause", least: auth.Operator, handler: web.ScheduleChange(d.Schedules, web.Schedules.Pause, "paused"), change: changes(audit.ActionSchedulePause, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/schedules/:id/resume", least: auth.Operator, handler: web.ScheduleChange(d.Schedules, web.Schedules.Resume, "resumed"), change: changes(audit.ActionScheduleResume, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/schedules/:id/edit", least: auth.Operator, handler: web.ScheduleEdit(d.Schedules), change: changes(audit.ActionScheduleUpdate, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/schedules/:id/delete", least: auth.Operator, handler: web.ScheduleChange(d.Schedules, web.Schedules.Delete, "deleted"), change: changes(audit.ActionScheduleDelete, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/stop", least: auth.Operator, handler: web.DeploymentComponents(d.Deployments, web.StopComponents, "stop"), change: changes(audit.ActionDeploymentStop, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/start", least: auth.Operator, handler: web.DeploymentComponents(d.Deployments, web.StartComponents, "start"), change: changes(audit.ActionDeploymentStart, audit.TargetDeployment)},
		{method: http.MethodGet, path: "/deployments/:name/delete", least: auth.Operator, handler: web.DeploymentDeleteShow(d.Deployments, md)},
		{method: http.MethodPost, path: "/deployments/:name/delete", least: auth.Operator, handler: web.DeploymentDeleteSubmit(d.Deployments, md), change: changes(audit.ActionDeploymentDelete, audit.TargetDeployment)},
		{method: http.MethodPost, path: "/deployments/:name/move", least: auth.Admin, handler: web.DeploymentMove(d.Teams), change: changes(audit.ActionDeploymentMove, audit.TargetDeployment)},
		{method: http.MethodGet, path: "/tasks", least: auth.Member, handler: web.TaskActivity(d.Deployments, d.Teams)},
		{method: http.MethodGet, path: "/deployments/:name/tasks", least: auth.ReadOnly, handler: web.TaskList(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/tasks/:id", least: auth.ReadOnly, handler: web.TaskShow(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/tasks/:id/steps", least: auth.ReadOnly, handler: web.TaskSteps(d.Deployments)},
		{method: http.MethodPost, path: "/deployments/:name/tasks/:id/cancel", least: auth.Operator, handler: web.TaskCancel(d.Deployments), change: changes(audit.ActionDeploymentCancel, audit.TargetDeployment)},

		// The store shows non-admins only the entries about deployments and
		// teams, and members only their teams', as the API does.
		{method: http.MethodGet, path: "/audit", least: auth.Member, handler: web.AuditList(d.Audit, d.Teams)},

		{method: http.MethodGet, path: "/namespaces", least: auth.ReadOnly, handler: web.NamespacePolicyShow(d.Deployments)},
		{method: http.MethodPost, path: "/namespaces", least: auth.Admin, handler: web.NamespacePolicySave(d.Deployments), change: changes(audit.ActionNamespacePolicyUpdate, audit.TargetPolicy)},

		// A team's page and members: the role that counts is the user's in
		// that team (teamPageScope), so the team's admins manage its members.
		{method: http.MethodGet, path: "/teams", least: auth.Member, handler: web.TeamList(d.Teams)},
		{method: http.MethodPost, path: "/teams", least: auth.Admin, handler: web.TeamCreate(d.Teams), change: change{action: audit.ActionTeamCreate, target: audit.TargetTeam, form: "name"}},
		{method: http.MethodGet, path: "/teams/:name", least: auth.ReadOnly, handler: web.TeamShow(d.Teams, d.Deployments)},
		{method: http.MethodPost, path: "/teams/:name/members", least: auth.Admin, handler: web.TeamMemberSet(d.Teams, d.Deployments, d.Users), change: changes(audit.ActionTeamUpdate, audit.TargetTeam)},
		{method: http.MethodPost, path: "/teams/:name/members/:username/remove", least: auth.Admin, handler: web.TeamMemberRemove(d.Teams, d.Deployments, d.Users), change: changes(audit.ActionTeamUpdate, audit.TargetTeam)},
		{method: http.MethodPost, path: "/teams/:name/policy", least: auth.Admin, handler: web.TeamPolicySave(d.Teams, d.Deployments), change: changes(audit.ActionTeamUpdate, audit.TargetTeam)},
		{method: http.MethodPost, path: "/teams/:name/delete", least: auth.Admin, handler: web.TeamDelete(d.Teams), change: changes(audit.ActionTeamDelete, audit.TargetTeam)},

		{method: http.MethodGet, path: "/users", least: auth.Admin, handler: web.UserList(d.Users)},
		{method: http.MethodPost, path: "/users", least: auth.Admin, handler: web.UserCreate(d.Users), change: change{action: audit.ActionUserCreate, target: audit.TargetUser, form: "username"}},
		{method: http.MethodPost, path: "/users/:id/role", least: auth.Admin, handler: web.UserRole(d.Users), change: changes(audit.ActionUserUpdate, audit.TargetUser)},
		{method: http.MethodPost, path: "/users/:id/disable", least: auth.Admin, handler: web.UserDisable(d.Users, true), change: changes(audit.ActionUserUpdate, audit.TargetUser)},
		{method: http.MethodPost, path: "/users/:id/enable", least: auth.Admin, handler: web.UserDisable(d.Users, false), change: changes(audit.ActionUserUpdate, audit.TargetUser)},
		{method: http.MethodPost, path: "/users/:id/password", least: auth.Admin, handler: web.UserPassword(d.Users), change: changes(audit.ActionUserUpdate, audit.TargetUser)},
		{method: http.MethodGet, path: "/users/:id/tokens", least: auth.Admin, handler: web.UserTokenList(d.Users, d.APITokens)},

		// Webhooks: the store shows a member their teams' webhooks and lets
		// a team's admins manage them; a webhook by id is checked against
		// the user's role in its team (webhookScope).
		{method: http.MethodGet, path: "/webhooks", least: auth.Member, handler: web.WebhookList(d.Webhooks, d.Teams)},
		{method: http.MethodPost, path: "/webhooks", least: auth.Operator, handler: web.WebhookCreate(d.Webhooks, d.Teams), change: changes(audit.ActionWebhookCreate, audit.TargetWebhook)},
		{method: http.MethodGet, path: "/webhooks/:id", least: auth.ReadOnly, handler: web.WebhookShow(d.Webhooks, d.Teams)},
		{method: http.MethodPost, path: "/webhooks/:id", least: auth.Operator, handler: web.WebhookUpdate(d.Webhooks, d.Teams), change: changes(audit.ActionWebhookUpdate, audit.TargetWebhook)},
		{method: http.MethodPost, path: "/webhooks/:id/delete", least: auth.Operator, handler: web.WebhookDelete(d.Webhooks, d.Teams), change: changes(audit.ActionWebhookDelete, audit.TargetWebhook)},
		{method: http.MethodPost, path: "/webhooks/:id/deliveries/:delivery/redeliver", least: auth.Operator, handler: web.WebhookRedeliver(d.Webhooks, d.Teams), change: changes(audit.ActionWebhookRedeliver, audit.TargetWebhook)},

		{method: http.MethodGet, path: "/settings", least: auth.Admin, handler: web.SettingsShow(d.ChartHosts)},
		{method: http.MethodPost, path: "/settings/chart-hosts", least: auth.Admin, handler: web.ChartHostsSave(d.ChartHosts), change: changes(audit.ActionChartHostsUpdate, audit.TargetSettings)},
	}, append(actionRoutes(d.Primitives), apiRoutes(apiServer(d))...)...)
}

// actionRoutes are the permission table's lines for the action primitives:
// they answer JSON, take only an action token (never a session), and act on
// that token's deployment only.
func actionRoutes(p action.Primitives) []route {
	r := func(method, path string, handler echo.HandlerFunc, ch ...change) route {
		rt := route{method: method, path: action.Prefix + path, least: auth.Anonymous, handler: handler, actionToken: true}
		if len(ch) > 0 {
			rt.change = ch[0]
		}
		return rt
	}
	return []route{
		r(http.MethodGet, "run", action.RunRead(p)),
		r(http.MethodGet, "deployment", action.DeploymentRead(p)),
		r(http.MethodPost, "tasks/stop", action.TaskStart(p, deployment.KindStop), changes(audit.ActionDeploymentStop, audit.TargetDeployment)),
		r(http.MethodPost, "tasks/start", action.TaskStart(p, deployment.KindStart), changes(audit.ActionDeploymentStart, audit.TargetDeployment)),
		r(http.MethodPost, "tasks/upgrade", action.TaskStart(p, deployment.KindUpgrade), changes(audit.ActionDeploymentUpgrade, audit.TargetDeployment)),
		r(http.MethodGet, "tasks/:id", action.TaskRead(p)),
		r(http.MethodPost, "jobs", action.ExecuteCommands(p), changes(audit.ActionDeploymentJob, audit.TargetDeployment)),
	}
}

// apiRoutes are the permission table's lines for the REST API: one per
// operation of api/openapi.yaml, whose x-styrmin-role is the least role (the
// document is the one place that says it), with the audit change that
// apiChanges names for it.
func apiRoutes(server *api.Server) []route {
	// The embedded document is part of the binary: one that does not load,
	// or an operation without a role, is a programming error caught by any test.
	ops, err := api.Operations(server)
	if err != nil {
		panic(err)
	}
	changes := apiChanges()
	table := []route{{method: http.MethodGet, path: api.Prefix + "/openapi.json", least: auth.Anonymous, handler: api.Document(), bare: true}}
	for _, op := range ops {
		table = append(table, route{method: op.Method, path: op.Path, least: op.Least, handler: op.Handler, api: true, maxBody: op.MaxBody, change: changes[op.ID]})
		delete(changes, op.ID)
	}
	for id := range changes {
		panic("handlers: apiChanges names operation " + id + ", which api/openapi.yaml does not have")
	}
	return table
}

// apiChanges is the audit change of each operation of the REST API that
// changes state, by operationId as the served document and the generated
// server spell it (UpdateUser): the same action as the page that makes the
// same change.
func apiChanges() map[string]change {
	return map[string]change{
		"UploadDriver":             changes(audit.ActionDriverUpload, audit.TargetDriver),
		"ApproveDriverPermissions": changes(audit.ActionDriverApprovePermissions, audit.TargetDriver),
		"InstallDeployment":        changes(audit.ActionDeploymentInstall, audit.TargetDeployment),
		"DeleteDeployment":         changes(audit.ActionDeploymentDelete, audit.TargetDeployment),
		"UpgradeDeployment":        changes(audit.ActionDeploymentUpgrade, audit.TargetDeployment),
		"RollbackDeployment":       changes(audit.ActionDeploymentRollback, audit.TargetDeployment),
		"ReconcileDeployment":      changes(audit.ActionDeploymentReconcile, audit.TargetDeployment),
		"AcceptDeploymentDrift":    changes(audit.ActionDeploymentDriftAccept, audit.TargetDeployment),
		"StopDeployment":           changes(audit.ActionDeploymentStop, audit.TargetDeployment),
		"StartDeployment":          changes(audit.ActionDeploymentStart, audit.TargetDeployment),
		"RunAction":                changes(audit.ActionDeploymentAction, audit.TargetDeployment),
		"CancelTask":               changes(audit.ActionDeploymentCancel, audit.TargetDeployment),
		"CreateUser":               changes(audit.ActionUserCreate, audit.TargetUser),
		"UpdateUser":               changes(audit.ActionUserUpdate, audit.TargetUser),
		"CreateToken":              changes(audit.ActionTokenCreate, audit.TargetToken),
		"PasswordGrant":            changes(audit.ActionSignin, audit.TargetUser),
		"RevokeToken":              changes(audit.ActionTokenRevoke, audit.TargetToken),
		"SetNamespacePolicy":       changes(audit.ActionNamespacePolicyUpdate, audit.TargetPolicy),
		"CreateWebhook":            changes(audit.ActionWebhookCreate, audit.TargetWebhook),
		"UpdateWebhook":            changes(audit.ActionWebhookUpdate, audit.TargetWebhook),
		"DeleteWebhook":            changes(audit.ActionWebhookDelete, audit.TargetWebhook),
		"RedeliverWebhook":         changes(audit.ActionWebhookRedeliver, audit.TargetWebhook),
		"CreateSource":             changes(audit.ActionSourceCreate, audit.TargetSource),
		"DeleteSource":             changes(audit.ActionSourceDelete, audit.TargetSource),
		"SyncSource":               changes(audit.ActionSourceSync, audit.TargetSource),
		"UpdateSource":             changes(audit.ActionSourceUpdate, audit.TargetSource),
		"CreateSchedule":           changes(audit.ActionScheduleCreate, audit.TargetDeployment),
		"PauseSchedule":            changes(audit.ActionSchedulePause, audit.TargetDeployment),
		"ResumeSchedule":           changes(audit.ActionScheduleResume, audit.TargetDeployment),
		"DeleteSchedule":           changes(audit.ActionScheduleDelete, audit.TargetDeployment),
		"UpdateSchedule":           changes(audit.ActionScheduleUpdate, audit.TargetDeployment),
		"CreateTeam":               changes(audit.ActionTeamCreate, audit.TargetTeam),
		"DeleteTeam":               changes(audit.ActionTeamDelete, audit.TargetTeam),
		"SetTeamPolicy":            changes(audit.ActionTeamUpdate, audit.TargetTeam),
		"SetTeamMember":            changes(audit.ActionTeamUpdate, audit.TargetTeam),
		"RemoveTeamMember":         changes(audit.ActionTeamUpdate, audit.TargetTeam),
		"MoveDeployment":           changes(audit.ActionDeploymentMove, audit.TargetDeployment),
	}
}

// apiServer is the REST API's server over d's services.
func apiServer(d Deps) *api.Server {
	return &api.Server{Deployments: d.Deployments, Drivers: d.Drivers, Users: d.Users, APITokens: d.APITokens, Namespaces: d.Deployments, Webhooks: d.Webhooks, Audit: d.Audit, Schedules: d.Schedules, Sources: d.Sources, Teams: d.Teams}
}
