package webhooks

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/teams"
)

// twoTeams makes the teams a and b on the store's database and returns their ids.
func twoTeams(t *testing.T, q *db.Queries) (a, b int64) {
	t.Helper()
	ta, err := q.CreateTeam(context.Background(), "a")
	require.NoError(t, err)
	tb, err := q.CreateTeam(context.Background(), "b")
	require.NoError(t, err)
	return ta.ID, tb.ID
}

// memberOf is a user whose own role is member, with role in team (named name).
func memberOf(username string, team int64, name string, role auth.Role) Caller {
	return Caller{Username: username, Role: auth.Member, Teams: teams.Memberships{{TeamID: team, Team: name, Role: role}}}
}

// TestATeamsAdminsManageItsWebhooksAndItsMembersReadThem: a team's admin
// makes, edits, retargets and deletes the team's webhooks; its operator and
// read-only members list and read them but change nothing (403); to a
// member of another team, and to a member of no team, they do not exist,
// in the words said of an id nobody used; a team's admin sees no global
// webhook and may make none, nor one for another team (refused at the
// field team).
func TestATeamsAdminsManageItsWebhooksAndItsMembersReadThem(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	a, b := twoTeams(t, s.q)
	adam := memberOf("adam", a, "a", auth.Admin)
	otto := memberOf("otto", a, "a", auth.Operator)
	rita := memberOf("rita", a, "a", auth.ReadOnly)
	bea := memberOf("bea", b, "b", auth.Admin)
	nobody := Caller{Username: "nora", Role: auth.Member}
	global, err := s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/all", Secret: testSecret, Events: []Event{Failed}})
	require.NoError(t, err)
	require.Empty(t, global.Team, "a webhook without a team is global")
	ofB, err := s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/b", Secret: testSecret, Events: []Event{Failed}, Team: "b"})
	require.NoError(t, err)
	require.Equal(t, "b", ofB.Team)

	ofA, err := s.Create(ctx, adam, NewWebhook{URL: "https://hooks.example/a", Secret: testSecret, Events: []Event{Failed}, Team: "a"})
	require.NoError(t, err, "a team's admin makes a webhook for every deployment of the team")
	require.Equal(t, "a", ofA.Team)
	require.Equal(t, &a, ofA.TeamID)
	for _, team := range []string{"b", "", "no-such-team"} {
		_, err = s.Create(ctx, adam, NewWebhook{URL: "https://hooks.example/x", Secret: testSecret, Events: []Event{Failed}, Team: team})
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "team %q", team)
		require.Contains(t, strings.ToLower(styrmin.ErrorFields(err)["team"]), "choose one of your teams (a)", "team %q", team)
	}
	for _, c := range []Caller{otto, rita, nobody} {
		_, err = s.Create(ctx, c, NewWebhook{URL: "https://hooks.example/x", Secret: testSecret, Events: []Event{Failed}, Team: "a"})
		require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), c.Username)
		require.Contains(t, styrmin.ErrorFields(err)["team"], "You manage no team's webhooks", c.Username)
	}

	for _, c := range []Caller{adam, otto, rita} {
		list, err := s.List(ctx, c)
		require.NoError(t, err)
		require.Equal(t, []int64{ofA.ID}, ids(list), "%s sees a's webhook only", c.Username)
		w, _, err := s.Get(ctx, c, ofA.ID)
		require.NoError(t, err, c.Username)
		require.Equal(t, "https://hooks.example/a", w.URL)
		for _, other := range []Webhook{global, ofB} {
			_, _, err := s.Get(ctx, c, other.ID)
			require.Equal(t, NotFound(other.ID), err, "%s: another team's or a global webhook does not exist", c.Username)
			_, err = s.Update(ctx, c, other.ID, WebhookChange{Events: &[]Event{Started}})
			require.Equal(t, NotFound(other.ID), err)
			require.Equal(t, NotFound(other.ID), s.Delete(ctx, c, other.ID))
			_, err = s.Redeliver(ctx, c, other.ID, 1)
			require.Equal(t, NotFound(other.ID), err)
		}
	}
	for _, c := range []Caller{bea, nobody} {
		_, _, err := s.Get(ctx, c, ofA.ID)
		require.Equal(t, NotFound(ofA.ID), err, c.Username)
	}
	for _, c := range []Caller{otto, rita} {
		_, err := s.Update(ctx, c, ofA.ID, WebhookChange{Events: &[]Event{Started}})
		require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), c.Username)
		require.ErrorContains(t, err, "Only the team's admins change its webhooks")
		require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(s.Delete(ctx, c, ofA.ID)), c.Username)
		_, err = s.Redeliver(ctx, c, ofA.ID, 1)
		require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), c.Username)
	}

	url := "https://hooks.example/a-moved"
	changed, err := s.Update(ctx, adam, ofA.ID, WebhookChange{URL: &url, Deployments: &[]string{}})
	require.NoError(t, err, "a team's admin retargets the team's webhooks")
	require.Equal(t, url, changed.URL)
	require.Equal(t, "a", changed.Team, "an edit keeps the team")
	list, err := s.List(ctx, admin)
	require.NoError(t, err)
	require.Equal(t, []int64{ofA.ID, ofB.ID, global.ID}, ids(list), "an admin sees every webhook")
	require.NoError(t, s.Delete(ctx, adam, ofA.ID))
	_, _, err = s.Get(ctx, admin, ofA.ID)
	require.Equal(t, NotFound(ofA.ID), err)
}

// TestAGlobalOperatorMakesWebhooksForATeam: an operator (of their own role)
// chooses a team or global, naming deployments as before teams; an admin
// makes a team's webhook for every deployment.
func TestAGlobalOperatorMakesWebhooksForATeam(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	twoTeams(t, s.q)
	operator := Caller{Username: "olga", Role: auth.Operator}
	w, err := s.Create(ctx, operator, NewWebhook{URL: "https://hooks.example/b", Secret: testSecret, Events: []Event{Failed}, Team: "b", Deployments: []string{"beta"}})
	require.NoError(t, err)
	require.Equal(t, "b", w.Team)
	_, err = s.Create(ctx, operator, NewWebhook{URL: "https://hooks.example/b", Secret: testSecret, Events: []Event{Failed}, Team: "b"})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "a team's webhook for every deployment is an admin's")
	_, err = s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/b", Secret: testSecret, Events: []Event{Failed}, Team: "no-such-team"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Equal(t, `There is no team named "no-such-team".`, styrmin.ErrorFields(err)["team"])
	list, err := s.List(ctx, operator)
	require.NoError(t, err)
	require.Equal(t, []int64{w.ID}, ids(list))
}

// TestATeamsWebhookHearsOfItsTeamsDeploymentsOnly: team a's webhook gets
// the events of a's deployment and not of b's; a global webhook gets both.
func TestATeamsWebhookHearsOfItsTeamsDeploymentsOnly(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	ctx := context.Background()
	teamA, teamB := twoTeams(t, b.q)
	rcv := newReceiver(t)
	ofA, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL + "/a", Secret: testSecret, Events: []Event{Succeeded}, Team: "a"})
	require.NoError(t, err)
	global := b.webhook(t, rcv.URL+"/all", Succeeded)

	alpha := b.runTaskIn(t, "alpha", "install", &teamA)
	beta := b.runTaskIn(t, "beta", "install", &teamB)

	toGlobal := b.deliveries(t, global.ID, 2)
	require.ElementsMatch(t, []int64{alpha.ID, beta.ID}, []int64{*toGlobal[0].TaskID, *toGlobal[1].TaskID}, "a global webhook hears of every team")
	toA := b.deliveries(t, ofA.ID, 1)
	require.Equal(t, alpha.ID, *toA[0].TaskID, "a's webhook hears of a's deployment, not b's")
	require.Equal(t, "alpha", toA[0].Deployment)
	require.Len(t, rcv.got(), 3, "the receiver got beta's event once, through the global webhook")
}
