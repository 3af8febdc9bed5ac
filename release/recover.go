package release

import (
	"context"
	"errors"
	"fmt"

	"helm.sh/helm/v3/pkg/action"
	helmrelease "helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// RecoveryAction is what RecoverPending did.
type RecoveryAction string

// The outcomes of RecoverPending.
const (
	// RecoveryNone: the release's last revision was not pending (or there is no release).
	RecoveryNone RecoveryAction = "none"
	// RecoveryMarkedFailed: the pending revision was marked failed and nothing else changed.
	RecoveryMarkedFailed RecoveryAction = "marked-failed"
	// RecoveryRolledBack: the pending revision was marked failed and the release
	// rolled back to its last deployed revision.
	RecoveryRolledBack RecoveryAction = "rolled-back"
)

// Recovery reports what RecoverPending did, for the task's message.
type Recovery struct {
	// Action is what was done.
	Action RecoveryAction
	// Revision is the revision that was pending; 0 when none was.
	Revision int
	// Was is the pending revision's status before recovery.
	Was Status
	// RolledBackTo is the deployed revision the release went back to; 0 when none.
	RolledBackTo int
	// Message says what happened in one sentence.
	Message string
}

// recoveredDescription is recorded on a pending revision that RecoverPending marks failed.
const recoveredDescription = "Marked failed by Styrmin: the process running this %s stopped before it ended"

// RecoverPending repairs a release whose last revision was left
// pending-install, pending-upgrade or pending-rollback by a process that
// stopped (killed, crashed) in the middle of it, so that later operations are
// not refused as "in progress". It must run only when no process still works
// on the release (the executor's guard on the deployment makes sure of that).
//
//   - pending-install: the revision is marked failed; a later Install replaces
//     it and a later Uninstall removes what it created.
//   - pending-upgrade or pending-rollback: the revision is marked failed, then,
//     when the release has a deployed revision, the release is rolled back to
//     it (a new revision, without waiting for readiness), which undoes whatever
//     the stopped operation had applied. With no deployed revision, the release
//     is only marked failed.
//   - any other status, or no release at all: nothing is done (RecoveryNone).
//     A release left uninstalling is not pending: Uninstall again finishes it.
//
// Whatever it changes is also logged.
//
// Errors: EFORBIDDEN (IsForeign) when the release is not owner's (nothing is
// changed), EUNAVAILABLE when the cluster does not answer; a failed rollback
// leaves the release failed and returns the error with the Recovery so far.
func (c *Client) RecoverPending(ctx context.Context, namespace, name string, owner Owner) (Recovery, error) {
	cfg, err := c.config(ctx, namespace)
	if err != nil {
		return Recovery{}, fail("recover", namespace, name, err)
	}
	last, err := lastOwned(cfg, "recover", name, owner)
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return Recovery{Action: RecoveryNone, Message: fmt.Sprintf("Release %s has no revision to recover.", name)}, nil
	}
	if err != nil {
		return Recovery{}, fail("recover", namespace, name, err)
	}
	rec := Recovery{Action: RecoveryNone, Was: Status(last.Info.Status)}
	if !last.Info.Status.IsPending() {
		rec.Message = fmt.Sprintf("Release %s is %s at revision %d: nothing to recover.", name, rec.Was, last.Version)
		return rec, nil
	}
	rec.Revision = last.Version
	last.SetStatus(helmrelease.StatusFailed, fmt.Sprintf(recoveredDescription, pendingOperation(last.Info.Status)))
	if err := cfg.Releases.Update(last); err != nil {
		return Recovery{}, fail("recover", namespace, name, err)
	}
	rec.Action = RecoveryMarkedFailed
	rec.Message = fmt.Sprintf("Revision %d of release %s was %s; marked it failed.", rec.Revision, name, rec.Was)
	if rec.Was == StatusPendingInstall {
		c.logRecovery(namespace, name, rec)
		return rec, nil
	}
	deployed, err := cfg.Releases.Deployed(name)
	if errors.Is(err, driver.ErrNoDeployedReleases) {
		rec.Message = fmt.Sprintf("Revision %d of release %s was %s; marked it failed (no deployed revision to roll back to).", rec.Revision, name, rec.Was)
		c.logRecovery(namespace, name, rec)
		return rec, nil
	}
	if err != nil {
		return rec, fail("recover", namespace, name, err)
	}
	rollback := action.NewRollback(cfg)
	rollback.Version, rollback.Timeout = deployed.Version, DefaultTimeout
	if err := rollback.Run(name); err != nil {
		c.logRecovery(namespace, name, rec)
		return rec, fail("recover", namespace, name, fmt.Errorf("roll back to revision %d: %w", deployed.Version, err))
	}
	rec.Action, rec.RolledBackTo = RecoveryRolledBack, deployed.Version
	rec.Message = fmt.Sprintf("Revision %d of release %s was %s; marked it failed and rolled back to revision %d.", rec.Revision, name, rec.Was, deployed.Version)
	c.logRecovery(namespace, name, rec)
	return rec, nil
}

// logRecovery logs what RecoverPending changed.
func (c *Client) logRecovery(namespace, name string, rec Recovery) {
	c.log.Info("release: recovered a pending release", "namespace", namespace, "release", name,
		"action", rec.Action, "revision", rec.Revision, "was", rec.Was, "rolled_back_to", rec.RolledBackTo)
}

// pendingOperation names the operation a pending status belongs to.
func pendingOperation(s helmrelease.Status) string {
	switch s {
	case helmrelease.StatusPendingInstall:
		return "install"
	case helmrelease.StatusPendingRollback:
		return "rollback"
	}
	return "upgrade"
}
