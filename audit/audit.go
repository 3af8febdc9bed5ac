// Package audit keeps the audit log: an append-only record of every state
// change and every sign-in, who made it, what it was about and how it ended.
// The table refuses changes (db/migrations/00015_audit.sql); only Prune, the
// retention, deletes entries.
package audit

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// Outcome is how a recorded request ended.
type Outcome string

// The outcomes of an entry.
const (
	// Allowed: the change was made (or, for a task, queued).
	Allowed Outcome = "allowed"
	// Refused: the caller may not do it, or the input was wrong; Reason says why.
	Refused Outcome = "refused"
	// Failed: the server could not do it (an internal or unavailable error).
	Failed Outcome = "failed"
)

// Outcomes lists the outcomes in the order pages show them.
func Outcomes() []Outcome { return []Outcome{Allowed, Refused, Failed} }

// Valid reports whether o is one of the outcomes.
func (o Outcome) Valid() bool { return slices.Contains(Outcomes(), o) }

// Via names the credential an actor came with.
type Via string

// The credentials of an actor.
const (
	ViaSession     Via = "session"
	ViaAPIToken    Via = "api-token"
	ViaActionToken Via = "action-token"
	// ViaCommandLine: the styrmin command, run where the database is
	// reachable (whoever reaches it may change anything: an admin).
	ViaCommandLine Via = "command-line"
	// ViaSchedule: a schedule its author made runs an action (package
	// schedule); the actor is the author.
	ViaSchedule Via = "schedule"
	// ViaSource: a catalogue source's sync imports or refuses a version
	// (package source); the actor is "source NAME".
	ViaSource Via = "source"
	// ViaNone: nobody was signed in (a sign-in attempt, a refused visitor).
	ViaNone Via = "none"
)

// Target kinds: what an entry is about.
const (
	TargetDeployment = "deployment"
	TargetDriver     = "driver"
	TargetUser       = "user"
	TargetToken      = "token"
	TargetSession    = "session"
	TargetPolicy     = "policy"
	TargetSettings   = "settings"
	TargetWebhook    = "webhook"
	TargetSource     = "source"
	TargetTeam       = "team"
)

// TargetKinds lists the target kinds, in the order pages show them.
func TargetKinds() []string {
	return []string{TargetDeployment, TargetDriver, TargetUser, TargetToken, TargetSession, TargetPolicy, TargetSettings, TargetWebhook, TargetSource, TargetTeam}
}

// Actor is who made a request.
type Actor struct {
	// UserID is the user's id; 0 for nobody (and for an action token).
	UserID int64 `json:"user_id,omitempty"`
	// TokenID is the id (never the secret) of the personal API token the
	// user came with; 0 for any other credential.
	TokenID int64 `json:"token_id,omitempty"`
	// Name is the username (for a sign-in, the one typed), or for an
	// action token "action <name> of task <id>".
	Name string `json:"name"`
	Via  Via    `json:"via"`
	// Role is the user's role at the time; empty for nobody.
	Role string `json:"role"`
	// Address is the client's address; shown to admins only.
	Address string `json:"address,omitempty"`
}

// Target is what an entry is about.
type Target struct {
	// Kind is one of the Target* constants.
	Kind string `json:"kind"`
	// Name names the thing: a deployment's or driver's name, a user's or
	// token's id; empty when the request did not name one.
	Name string `json:"name"`
}

// Entry is one line of the audit log.
type Entry struct {
	ID int64     `json:"id"`
	At time.Time `json:"at"`
	// Actor is who made the request.
	Actor Actor `json:"actor"`
	// Action names the change, e.g. deployment.install, signin, user.create.
	Action string `json:"action"`
	// Target is what the request was about.
	Target  Target  `json:"target"`
	Outcome Outcome `json:"outcome"`
	// Reason says why a change was refused or failed; empty when allowed.
	Reason string `json:"reason,omitempty"`
	// Detail holds what else the request named (path parameters, say).
	Detail map[string]string `json:"detail,omitempty"`
	// RequestID is the id of the request that made the change (its
	// X-Request-Id, in its log line too); empty for the command line.
	RequestID string `json:"request_id,omitempty"`
}

// detailJSON is e's detail as the table stores it.
func (e Entry) detailJSON() ([]byte, error) {
	if e.Detail == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(e.Detail)
}

// OutcomeOf is how a change that returned err ended, and why when it did
// not happen: refused when the error is the caller's (a wrong input, a
// conflict, something missing), failed when it is the server's (a bug, a
// database or cluster that did not answer).
func OutcomeOf(err error) (Outcome, string) {
	if err == nil {
		return Allowed, ""
	}
	err = db.Classify(err)
	switch styrmin.ErrorCode(err) {
	case styrmin.EINTERNAL, styrmin.EUNAVAILABLE:
		return Failed, styrmin.ErrorMessage(err)
	}
	return Refused, styrmin.ErrorMessage(err)
}
