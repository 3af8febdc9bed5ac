package webhooks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/secrets"
)

// newStore is a store on a new database; its redeliveries queue nowhere.
func newStore(t *testing.T) *Store {
	t.Helper()
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	return NewStore(dbtest.New(t), box, nil, deploymentRules)
}

// deploymentRules are the deployment service's rules, as app.New gives them.
var deploymentRules = Rules{CheckDeploymentName: deployment.CheckDeploymentName, TaskKinds: deployment.TaskKinds()}

func TestOperatorsManageOnlyTheWebhooksOfNamedDeployments(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	operator := Caller{Username: "olga", Role: auth.Operator}
	everywhere, err := s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/all", Secret: testSecret, Events: []Event{Failed}})
	require.NoError(t, err)

	_, err = s.Create(ctx, operator, NewWebhook{URL: "https://hooks.example/all", Secret: testSecret, Events: []Event{Failed}})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "an operator's webhook for every deployment")
	shop, err := s.Create(ctx, operator, NewWebhook{URL: "https://hooks.example/shop", Secret: testSecret, Events: []Event{Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)
	require.Equal(t, "olga", shop.CreatedBy)

	list, err := s.List(ctx, operator)
	require.NoError(t, err)
	require.Equal(t, []int64{shop.ID}, ids(list), "an operator does not see an admin's webhook for every deployment")
	list, err = s.List(ctx, admin)
	require.NoError(t, err)
	require.Equal(t, []int64{shop.ID, everywhere.ID}, ids(list), "an admin sees every webhook, newest first")
	_, _, err = s.Get(ctx, operator, everywhere.ID)
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(s.Delete(ctx, operator, everywhere.ID)))
	_, err = s.Redeliver(ctx, operator, everywhere.ID, 1)
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))

	require.NoError(t, s.Delete(ctx, operator, shop.ID))
	_, _, err = s.Get(ctx, admin, shop.ID)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

// TestReadOnlyUsersManageNoWebhooks: a read-only user of no team makes no
// webhook, sees none, and is told a global one does not exist.
func TestReadOnlyUsersManageNoWebhooks(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	reader := Caller{Username: "rita", Role: auth.ReadOnly}
	w, err := s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/shop", Secret: testSecret, Events: []Event{Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)

	_, err = s.Create(ctx, reader, NewWebhook{URL: "https://hooks.example/x", Secret: testSecret, Events: []Event{Failed}, Deployments: []string{"shop"}})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	require.Contains(t, styrmin.ErrorFields(err)["team"], "You manage no team's webhooks")
	list, err := s.List(ctx, reader)
	require.NoError(t, err)
	require.Empty(t, list)
	_, _, err = s.Get(ctx, reader, w.ID)
	require.Equal(t, NotFound(w.ID), err)
	require.Equal(t, NotFound(w.ID), s.Delete(ctx, reader, w.ID))
}

func TestTheSecretIsStoredSealedAndNeverReadBack(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	w, err := s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/", Secret: testSecret, Events: []Event{Failed}})
	require.NoError(t, err)

	got, err := s.q.GetWebhook(ctx, w.ID)
	require.NoError(t, err)
	row := got.Webhook
	require.NotContains(t, string(row.Secret), testSecret)
	opened, err := s.box.Open(row.Secret, secretAt(w.ID))
	require.NoError(t, err)
	require.Equal(t, testSecret, string(opened))
	_, err = s.box.Open(row.Secret, secretAt(w.ID+1))
	require.ErrorIs(t, err, secrets.ErrWrongKey, "a secret copied to another webhook does not open")
}

func TestAWebhookIsCheckedBeforeItIsStored(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	good := NewWebhook{URL: "https://hooks.example/", Secret: testSecret, Events: []Event{Failed}}
	for name, tc := range map[string]struct {
		change func(nw *NewWebhook)
		field  string
		says   string
	}{
		"no URL":             {func(nw *NewWebhook) { nw.URL = " " }, "url", "Give the URL"},
		"not http":           {func(nw *NewWebhook) { nw.URL = "ftp://hooks.example/" }, "url", "must start with https://"},
		"no host":            {func(nw *NewWebhook) { nw.URL = "https:///path" }, "url", "names no host"},
		"credentials in URL": {func(nw *NewWebhook) { nw.URL = "https://u:p@hooks.example/" }, "url", "Leave credentials out"},
		"short secret":       {func(nw *NewWebhook) { nw.Secret = "short" }, "secret", "at least 16 characters"},
		"no event":           {func(nw *NewWebhook) { nw.Events = nil }, "events", "Choose at least one event"},
		"unknown event":      {func(nw *NewWebhook) { nw.Events = []Event{"deleted"} }, "events", `There is no event "deleted"`},
		"bad deployment":     {func(nw *NewWebhook) { nw.Deployments = []string{"Shop!"} }, "deployments", `"Shop!"`},
		"unknown kind":       {func(nw *NewWebhook) { nw.Kinds = []string{"restart"} }, "kinds", `There is no task kind "restart"`},
		"unknown format":     {func(nw *NewWebhook) { nw.Format = "xml" }, "format", `There is no format "xml"`},
	} {
		t.Run(name, func(t *testing.T) {
			nw := good
			tc.change(&nw)
			_, err := s.Create(context.Background(), admin, nw)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
			require.Contains(t, styrmin.ErrorFields(err)[tc.field], tc.says)
			require.Contains(t, styrmin.ErrorMessage(err), tc.says)
		})
	}
	list, err := s.List(context.Background(), admin)
	require.NoError(t, err)
	require.Empty(t, list)
}

// ids are the ids of list.
func ids(list []Webhook) []int64 {
	out := []int64{}
	for _, w := range list {
		out = append(out, w.ID)
	}
	return out
}

func TestAKeyRotationResealsWebhookSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	oldKey, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	newKey, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	oldBox, err := secrets.NewBox(oldKey)
	require.NoError(t, err)
	w, err := NewStore(pool, oldBox, nil, deploymentRules).Create(ctx, admin, NewWebhook{URL: "https://hooks.example/", Secret: testSecret, Events: []Event{Failed}})
	require.NoError(t, err)
	rotating, err := secrets.NewBox(newKey, oldKey)
	require.NoError(t, err)
	q := db.New(pool)

	_, err = rotating.ResealAll(ctx, q)
	require.ErrorContains(t, err, "1 secrets are still sealed under another key", "a rotation that forgets webhooks says so")
	n, err := rotating.ResealAll(ctx, q, SealedSecrets(q, rotating.Header()))
	require.NoError(t, err)
	require.Equal(t, 1, n)

	newOnly, err := secrets.NewBox(newKey)
	require.NoError(t, err)
	row, err := q.GetWebhook(ctx, w.ID)
	require.NoError(t, err)
	opened, err := newOnly.Open(row.Webhook.Secret, secretAt(w.ID))
	require.NoError(t, err, "the new key alone opens the secret")
	require.Equal(t, testSecret, string(opened))
}

// TestDeliveryStatusesAndFormatsAreTheSchemas: the statuses and formats
// this package names are those the CHECK constraints allow.
func TestDeliveryStatusesAndFormatsAreTheSchemas(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	require.ElementsMatch(t, []string{DeliveryPending, DeliveryDelivered, DeliveryFailed}, dbtest.CheckedValues[string](t, pool, "webhook_deliveries", "status"))
	require.ElementsMatch(t, Formats(), dbtest.CheckedValues[Format](t, pool, "webhooks", "format"))
}

// TestAWebhookIsEditedAsItIsCreated: Update changes the fields given and
// keeps the others, keeps the secret unless a new one is given (checked as
// a new one is), and lets an operator neither edit an admin's webhook for
// every deployment nor make theirs one.
func TestAWebhookIsEditedAsItIsCreated(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	operator := Caller{Username: "olga", Role: auth.Operator}
	w, err := s.Create(ctx, operator, NewWebhook{URL: "https://hooks.example/shop", Secret: testSecret, Events: []Event{Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)
	secret := func() string {
		row, err := s.q.GetWebhook(ctx, w.ID)
		require.NoError(t, err)
		opened, err := s.box.Open(row.Webhook.Secret, secretAt(w.ID))
		require.NoError(t, err)
		return string(opened)
	}

	url, format, events := "https://hooks.example/v2", FormatSlack, []Event{Succeeded, Failed, Failed}
	changed, err := s.Update(ctx, operator, w.ID, WebhookChange{URL: &url, Format: &format, Events: &events})
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example/v2", changed.URL)
	require.Equal(t, FormatSlack, changed.Format)
	require.Equal(t, []Event{Failed, Succeeded}, changed.Events, "events are checked and sorted as on creation")
	require.Equal(t, []string{"shop"}, changed.Deployments, "fields not given stay")
	require.Equal(t, testSecret, secret(), "no secret given keeps the secret")
	empty := ""
	_, err = s.Update(ctx, operator, w.ID, WebhookChange{Secret: &empty})
	require.NoError(t, err)
	require.Equal(t, testSecret, secret(), "an empty secret keeps the secret")
	newSecret := "another secret, long enough"
	_, err = s.Update(ctx, operator, w.ID, WebhookChange{Secret: &newSecret})
	require.NoError(t, err)
	require.Equal(t, newSecret, secret(), "a new secret replaces it")

	short, bad := "short", "ftp://x"
	_, err = s.Update(ctx, operator, w.ID, WebhookChange{Secret: &short})
	require.Equal(t, "secret", firstField(t, err))
	_, err = s.Update(ctx, operator, w.ID, WebhookChange{URL: &bad})
	require.Equal(t, "url", firstField(t, err))
	require.Contains(t, styrmin.ErrorMessage(err), "was not saved")

	every := []string{}
	_, err = s.Update(ctx, operator, w.ID, WebhookChange{Deployments: &every})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "an operator cannot make a webhook for every deployment")
	all, err := s.Update(ctx, admin, w.ID, WebhookChange{Deployments: &every})
	require.NoError(t, err, "an admin can")
	require.Empty(t, all.Deployments)
	_, err = s.Update(ctx, operator, w.ID, WebhookChange{URL: &url})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "nor edit one")
	_, err = s.Update(ctx, admin, w.ID+100, WebhookChange{URL: &url})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	kept, _, err := s.Get(ctx, admin, w.ID)
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example/v2", kept.URL, "refused changes changed nothing")
}

// firstField is the one field an EINVALID error names.
func firstField(t *testing.T, err error) string {
	t.Helper()
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	fields := styrmin.ErrorFields(err)
	require.Len(t, fields, 1, "%v", fields)
	for f := range fields {
		return f
	}
	return ""
}

// TestOnlyItsCreatorOrAnAdminChangesAWebhooksURLOrSecret: an operator who
// may edit a webhook of named deployments that someone else created
// changes its events, deployments, kinds and format, but not where it
// sends nor what signs it; its creator and admins do.
func TestOnlyItsCreatorOrAnAdminChangesAWebhooksURLOrSecret(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	olga := Caller{Username: "olga", Role: auth.Operator}
	oscar := Caller{Username: "oscar", Role: auth.Operator}
	admins, err := s.Create(ctx, admin, NewWebhook{URL: "https://hooks.example/root", Secret: testSecret, Events: []Event{Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)
	olgas, err := s.Create(ctx, olga, NewWebhook{URL: "https://hooks.example/olga", Secret: testSecret, Events: []Event{Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)
	elsewhere, secret, events := "https://attacker.example/", "the operator's own secret, long enough", []Event{Succeeded}

	_, err = s.Update(ctx, olga, admins.ID, WebhookChange{URL: &elsewhere})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "an operator retargets an admin's webhook")
	require.Equal(t, "Only root, who created this webhook, or an admin may change its URL or secret.", styrmin.ErrorMessage(err))
	_, err = s.Update(ctx, olga, admins.ID, WebhookChange{Secret: &secret})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "or replaces its secret")
	_, err = s.Update(ctx, oscar, olgas.ID, WebhookChange{URL: &elsewhere})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "or another operator's")
	same := " " + admins.URL + " "
	changed, err := s.Update(ctx, olga, admins.ID, WebhookChange{URL: &same, Events: &events})
	require.NoError(t, err, "the URL as it is (as an edit form sends it back) changes nothing of the target")
	require.Equal(t, events, changed.Events)

	_, err = s.Update(ctx, olga, olgas.ID, WebhookChange{URL: &elsewhere, Secret: &secret})
	require.NoError(t, err, "the creator does")
	_, err = s.Update(ctx, admin, olgas.ID, WebhookChange{URL: &same})
	require.NoError(t, err, "and an admin does")
	require.True(t, admin.MayRetarget(admins))
	require.False(t, olga.MayRetarget(admins))
	require.True(t, olga.MayRetarget(olgas))
	require.False(t, Caller{Username: "olga", Role: auth.ReadOnly}.MayRetarget(olgas), "not once a read-only user")
	kept, _, err := s.Get(ctx, admin, admins.ID)
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example/root", kept.URL)
}
