package audit

// The actions of the audit log: what a recorded request did. Each is named
// once here and used by every adapter that makes the change (the pages, the
// REST API, the action primitives, the command line), so one change is
// recorded under one name whichever way it came. docs/audit.md lists them.
const (
	ActionSignin         = "signin"
	ActionSignout        = "signout"
	ActionSessionEnd     = "session.end"
	ActionPasswordChange = "password.change"

	ActionTokenCreate = "token.create"
	ActionTokenRevoke = "token.revoke"

	ActionDriverUpload             = "driver.upload"
	ActionDriverApprovePermissions = "driver.approve_permissions"

	ActionDeploymentInstall       = "deployment.install"
	ActionDeploymentUpgradeReview = "deployment.upgrade.review"
	ActionDeploymentUpgradeEdit   = "deployment.upgrade.edit"
	ActionDeploymentUpgrade       = "deployment.upgrade"
	ActionDeploymentRollback      = "deployment.rollback"
	ActionDeploymentAction        = "deployment.action"
	ActionDeploymentStop          = "deployment.stop"
	ActionDeploymentStart         = "deployment.start"
	ActionDeploymentDelete        = "deployment.delete"
	ActionDeploymentCancel        = "deployment.cancel"
	// ActionDeploymentReconcile queues a re-apply of the release as it is.
	ActionDeploymentReconcile = "deployment.reconcile"
	// ActionDeploymentDriftAccept accepts a deployment's drift as it is.
	ActionDeploymentDriftAccept = "deployment.drift.accept"
	// ActionDeploymentJob is an action's execute_commands call.
	ActionDeploymentJob = "deployment.job"

	// The schedules of a deployment's manual actions (package schedule);
	// each run is a deployment.action by the schedule's author, via schedule.
	ActionScheduleCreate = "deployment.schedule.create"
	ActionSchedulePause  = "deployment.schedule.pause"
	ActionScheduleResume = "deployment.schedule.resume"
	ActionScheduleDelete = "deployment.schedule.delete"
	ActionScheduleUpdate = "deployment.schedule.update"

	// The catalogue sources (package source): an admin's changes, and each
	// version a sync imports or refuses (by "source NAME", via source).
	ActionSourceCreate = "source.create"
	ActionSourceDelete = "source.delete"
	ActionSourceSync   = "source.sync"
	ActionSourceUpdate = "source.update"
	ActionSourceImport = "source.import"

	ActionNamespacePolicyUpdate = "namespace_policy.update"
	ActionChartHostsUpdate      = "chart_hosts.update"
	ActionSecretsRotate         = "secrets.rotate"

	// Teams (package teams): an admin's changes. A team's update is a
	// member added, given another role or removed; the detail names them.
	ActionTeamCreate     = "team.create"
	ActionTeamDelete     = "team.delete"
	ActionTeamUpdate     = "team.update"
	ActionDeploymentMove = "deployment.move"

	ActionUserCreate = "user.create"
	// ActionUserUpdate is a change of a user's role, disabled state or
	// password; the detail names what changed (role, disabled, password).
	ActionUserUpdate = "user.update"

	ActionWebhookCreate    = "webhook.create"
	ActionWebhookUpdate    = "webhook.update"
	ActionWebhookDelete    = "webhook.delete"
	ActionWebhookRedeliver = "webhook.redeliver"
)

// Actions lists every action, in the order docs/audit.md lists them.
func Actions() []string {
	return []string{
		ActionSignin, ActionSignout, ActionSessionEnd, ActionPasswordChange,
		ActionTokenCreate, ActionTokenRevoke,
		ActionDriverUpload, ActionDriverApprovePermissions,
		ActionDeploymentInstall, ActionDeploymentUpgradeReview, ActionDeploymentUpgradeEdit, ActionDeploymentUpgrade,
		ActionDeploymentRollback, ActionDeploymentAction, ActionDeploymentStop, ActionDeploymentStart,
		ActionDeploymentDelete, ActionDeploymentCancel, ActionDeploymentJob,
		ActionDeploymentReconcile, ActionDeploymentDriftAccept,
		ActionScheduleCreate, ActionSchedulePause, ActionScheduleResume, ActionScheduleDelete, ActionScheduleUpdate,
		ActionSourceCreate, ActionSourceDelete, ActionSourceSync, ActionSourceUpdate, ActionSourceImport,
		ActionNamespacePolicyUpdate, ActionChartHostsUpdate, ActionSecretsRotate,
		ActionUserCreate, ActionUserUpdate,
		ActionTeamCreate, ActionTeamDelete, ActionTeamUpdate, ActionDeploymentMove,
		ActionWebhookCreate, ActionWebhookUpdate, ActionWebhookDelete, ActionWebhookRedeliver,
	}
}
