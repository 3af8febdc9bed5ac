package webhooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
)

// Caller is who reads and manages webhooks. Their own role holds over every
// webhook: admins manage every one, operators those filtered to deployments,
// as before teams. Their role in a team holds over that team's webhooks: its
// admins manage them, its operators and read-only members read them. To
// anyone else a team's webhook, or a global one, does not exist.
type Caller struct {
	Username string
	Role     auth.Role
	// Teams are the caller's teams and roles in them (teams.Access).
	Teams teams.Memberships
}

// CallerOf is the Caller a user's access makes.
func CallerOf(a teams.Access) Caller {
	return Caller{Username: a.User.Username, Role: a.User.Role, Teams: a.Teams}
}

// roleIn is the caller's role in the team of a webhook (nil: global, where
// no team's role counts).
func (c Caller) roleIn(team *int64) auth.Role {
	if team == nil {
		return auth.Anonymous
	}
	return c.Teams.RoleIn(*team)
}

// global reports whether the caller's own role lets them manage webhooks
// (an operator's or an admin's).
func (c Caller) global() bool { return c.Role.AtLeast(auth.Operator) }

// readable returns the teams whose webhooks the caller reads through their
// role in them.
func (c Caller) readable() []int64 {
	ids := []int64{}
	for _, m := range c.Teams {
		if m.Role.AtLeast(auth.ReadOnly) {
			ids = append(ids, m.TeamID)
		}
	}
	return ids
}

// mayManage says why the caller may not manage a webhook of team (nil:
// global) that is filtered to deployments or not (nil when they may).
func (c Caller) mayManage(team *int64, perDeployment bool) error {
	switch {
	case c.Role.AtLeast(auth.Admin), c.roleIn(team).AtLeast(auth.Admin):
		return nil
	case c.Role.AtLeast(auth.Operator) && perDeployment:
		return nil
	case c.Role.AtLeast(auth.Operator):
		return styrmin.Errorf(styrmin.EFORBIDDEN, "Operators manage webhooks of named deployments only; a webhook for every deployment is an admin's (or, for a team's, its admins').")
	case team != nil && c.roleIn(team).AtLeast(auth.ReadOnly):
		return styrmin.Errorf(styrmin.EFORBIDDEN, "Only the team's admins change its webhooks; %s has the %s role in it.", c.Username, c.roleIn(team))
	}
	return styrmin.Errorf(styrmin.EFORBIDDEN, "Webhooks are managed by operators and admins, and a team's by its admins.")
}

// mayRead says why the caller may not read w (nil when they may): to a
// caller with no role over it that is not theirs, it does not exist.
func (c Caller) mayRead(w Webhook) error {
	if !c.global() && !c.roleIn(w.TeamID).AtLeast(auth.ReadOnly) {
		return notFound(w.ID)
	}
	if c.roleIn(w.TeamID).AtLeast(auth.ReadOnly) {
		return nil
	}
	return c.mayManage(w.TeamID, w.PerDeployment())
}

// MayManage reports whether the caller may change w (its filters, its
// deletion, its redeliveries); a page shows its forms only then.
func (c Caller) MayManage(w Webhook) bool { return c.mayManage(w.TeamID, w.PerDeployment()) == nil }

// MayRetarget reports whether the caller may change where w's deliveries
// go and what signs them (its URL and secret): only its creator, admins
// and its team's admins may, so that nobody who may merely edit a webhook
// (an operator, on another's webhook of named deployments) sends it, and
// the past deliveries they may redeliver, signed with its owner's secret,
// to an address of their choosing.
func (c Caller) MayRetarget(w Webhook) bool {
	return c.Role.AtLeast(auth.Admin) || c.roleIn(w.TeamID).AtLeast(auth.Admin) ||
		(c.Role.AtLeast(auth.Operator) && c.Username == w.CreatedBy)
}

// mayRetarget says why the caller may not change w's URL or secret (nil when they may).
func (c Caller) mayRetarget(w Webhook) error {
	if c.MayRetarget(w) {
		return nil
	}
	return styrmin.Errorf(styrmin.EFORBIDDEN, "Only %s, who created this webhook, or an admin may change its URL or secret.", w.CreatedBy)
}

// TeamChoices are the teams the caller may make webhooks for, by name, and
// whether they may make global ones: every team and global for an operator
// or admin of their own, else the teams where they are admin.
func (c Caller) TeamChoices(all []string) (names []string, global bool) {
	if c.global() {
		return all, true
	}
	for _, m := range c.Teams {
		if m.Role.AtLeast(auth.Admin) {
			names = append(names, m.Team)
		}
	}
	slices.Sort(names)
	return names, false
}

// mayCreate says why the caller may make no webhook at all (nil when they
// may make some): they are neither an operator or admin nor a team's admin.
func (c Caller) mayCreate() error {
	if mine, global := c.TeamChoices(nil); global || len(mine) > 0 {
		return nil
	}
	msg := "You manage no team's webhooks: that needs the admin role in a team. Ask an admin."
	return &styrmin.Error{Code: styrmin.EFORBIDDEN, Message: msg, Fields: map[string]string{"team": msg}}
}

// teamRefused says why the caller, who may make some webhooks, may not make
// one for the team of that name ("": global), "" when they may; a team
// they may not use is told as such whether it exists or not.
func (c Caller) teamRefused(team string) string {
	if c.global() {
		return ""
	}
	mine, _ := c.TeamChoices(nil)
	switch {
	case team == "":
		return fmt.Sprintf("A webhook for every team is a global admin's or operator's: choose one of your teams (%s).", strings.Join(mine, ", "))
	case !slices.Contains(mine, team):
		return fmt.Sprintf("You may not make webhooks for the team %s: that needs the admin role in it; choose one of your teams (%s).", team, strings.Join(mine, ", "))
	}
	return ""
}
