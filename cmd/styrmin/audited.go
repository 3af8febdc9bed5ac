package main

import (
	"context"
	"fmt"
	"os"
	"os/user"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
)

// commandLineActor is who the audit log names for a change made with this
// command: the command line, acting as an admin (whoever reaches the
// database may change anything), and which user of which machine ran it.
func commandLineActor() audit.Actor {
	who := "an unknown user"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	if host, err := os.Hostname(); err == nil {
		who += "@" + host
	}
	return audit.Actor{Name: "styrmin command (" + who + ")", Via: audit.ViaCommandLine, Role: auth.Admin.String()}
}

// audited makes a change of the command line with its audit entry: action
// on target, a thing of kind. A service that changes in a transaction writes
// the entry with its change (audit.Within); when none did (the change failed
// or writes no entry of its own), it is recorded here, with how it ended.
func audited(ctx context.Context, pool *pgxpool.Pool, action string, target audit.Target, change func(ctx context.Context) error) error {
	p := &audit.Pending{Entry: audit.Entry{Action: action, Target: target}, Actor: commandLineActor}
	err := change(audit.WithPending(ctx, p))
	if p.Recorded() {
		return err
	}
	e := p.Entry
	e.Actor = commandLineActor()
	e.Outcome, e.Reason = audit.OutcomeOf(err)
	if recErr := audit.NewStore(pool).Record(context.WithoutCancel(ctx), e); recErr != nil {
		if err == nil {
			return fmt.Errorf("the change was made, but its audit entry could not be written: %w", recErr)
		}
		return fmt.Errorf("%w (and its audit entry could not be written: %v)", err, recErr)
	}
	return err
}
