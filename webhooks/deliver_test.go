package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/secrets"
	"github.com/styrmin/styrmin/version"
)

// testSecret is the secret of the tests' webhooks.
const testSecret = "a-webhook-secret-of-32-characters"

// admin manages every webhook.
var admin = Caller{Username: "root", Role: auth.Admin}

// bundle is what a test works with: a worker whose tasks end as its
// runner says, with webhooks on its events.
type bundle struct {
	pool  *pgxpool.Pool
	q     *db.Queries
	queue *executor.Executor
	store *Store
}

// setup starts a worker running install tasks with run, whose deployments'
// secrets are secretsOf's, telling webhooks of its tasks.
func setup(t *testing.T, run func(ctx context.Context, r *executor.Run) (any, error), secretsOf executor.SecretsOf) bundle {
	t.Helper()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)
	_, err := q.InsertDriverVersion(ctx, db.InsertDriverVersionParams{
		Name: "demo", Version: "1.0.0", Title: "Demo", Labels: []byte("{}"), Spec: []byte("{}"), Digest: "sha256:demo", Bundle: []byte{},
	})
	require.NoError(t, err)
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	queue, err := executor.New(pool, executor.Options{Work: true, Logger: slog.New(slog.DiscardHandler), HeartbeatEvery: 100 * time.Millisecond, StaleAfter: 5 * time.Second,
		Events: &TaskEvents{BaseURL: "https://styrmin.example"}, Extra: NewDeliverer(pool, box, slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	worker, err := executor.NewWorker(queue, map[string]executor.Runner{"install": runner(run), "upgrade": runner(run)}, secretsOf)
	require.NoError(t, err)
	require.NoError(t, worker.Start(ctx))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, worker.Stop(stopCtx))
	})
	return bundle{pool: pool, q: q, queue: queue, store: NewStore(pool, box, queue, deploymentRules)}
}

// runner is a Runner that runs run and changes nothing to recover.
type runner func(ctx context.Context, r *executor.Run) (any, error)

func (f runner) Run(ctx context.Context, r *executor.Run) (any, error) { return f(ctx, r) }
func (f runner) Recover(context.Context, *executor.Run) (bool, string, error) {
	return false, "Nothing was changed.", nil
}

// succeed is a run that succeeds.
func succeed(context.Context, *executor.Run) (any, error) { return nil, nil }

// runTask commits a task of kind on a new deployment named name and waits until it ends.
func (b bundle) runTask(t *testing.T, name, kind string) db.Task {
	t.Helper()
	return b.runTaskIn(t, name, kind, nil)
}

// runTaskIn is runTask on a deployment of team (nil: the team default).
func (b bundle) runTaskIn(t *testing.T, name, kind string, team *int64) db.Task {
	t.Helper()
	ctx := context.Background()
	d, err := b.q.InsertDeployment(ctx, db.InsertDeploymentParams{Name: name, Namespace: name, DriverName: "demo",
		DriverVersion: "1.0.0", AppVersion: "1.0.0", Parameters: []byte("{}"), CreatedBy: "test", TeamID: team})
	require.NoError(t, err)
	var id int64
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		task, err := b.q.WithTx(tx).InsertTask(ctx, db.InsertTaskParams{DeploymentID: d.ID, Kind: kind, Inputs: []byte("{}"), CreatedBy: "alice"})
		if err != nil {
			return err
		}
		id = task.ID
		return b.queue.Enqueue(ctx, tx, task.ID)
	}))
	return executortest.WaitRow(t, b.q, id)
}

// webhook creates a webhook of url for events, as an admin.
func (b bundle) webhook(t *testing.T, url string, events ...Event) Webhook {
	t.Helper()
	w, err := b.store.Create(context.Background(), admin, NewWebhook{URL: url, Secret: testSecret, Events: events})
	require.NoError(t, err)
	return w
}

// deliveries waits until webhook id's deliveries are n and none is pending, and returns them, oldest first.
func (b bundle) deliveries(t *testing.T, id int64, n int) []Delivery {
	t.Helper()
	list := executortest.Wait(t, func(ctx context.Context) ([]Delivery, error) {
		_, list, err := b.store.Get(ctx, admin, id)
		return list, err
	}, func(list []Delivery) bool {
		if len(list) != n {
			return false
		}
		for _, d := range list {
			if d.Status == DeliveryPending {
				return false
			}
		}
		return true
	})
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list
}

// received is one request a receiver took.
type received struct {
	header http.Header
	body   []byte
}

// receiver is an HTTP endpoint on loopback that records what it is sent and
// answers with the statuses of answers in turn (then 200).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
	answers  []int
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	t.Helper()
	r := &receiver{answers: answers}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, received{header: req.Header.Clone(), body: body})
		status := http.StatusOK
		if len(r.answers) > 0 {
			status, r.answers = r.answers[0], r.answers[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

// got returns the requests received so far.
func (r *receiver) got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.requests...)
}

func TestTheReceiverGetsEachEventSignedWithTheSecret(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	w := b.webhook(t, rcv.URL+"/hook", Started, Succeeded)

	task := b.runTask(t, "shop", "install")

	list := b.deliveries(t, w.ID, 2)
	got := rcv.got()
	require.Len(t, got, 2)
	// The two deliveries may arrive in either order: each names its own.
	byID := map[string]received{}
	for _, req := range got {
		byID[req.header.Get(DeliveryHeader)] = req
	}
	for i, event := range []Event{Started, Succeeded} {
		d := list[i]
		req, ok := byID[strconv.FormatInt(d.ID, 10)]
		require.True(t, ok, "delivery %d was received with its id", d.ID)
		require.NoError(t, Verify([]byte(testSecret), req.header, req.body, MaxAge), "the receiver verifies the signature")
		require.ErrorIs(t, Verify([]byte("another secret of some length"), req.header, req.body, MaxAge), ErrSignature)
		require.Equal(t, string(event), req.header.Get(EventHeader))
		require.Equal(t, event, d.Event)
		require.Equal(t, "application/json", req.header.Get("Content-Type"))
		require.Equal(t, version.UserAgent(), req.header.Get("User-Agent"))
		require.Equal(t, DeliveryDelivered, d.Status)
		require.Equal(t, 1, d.Attempts)
		require.Equal(t, http.StatusOK, d.StatusCode)
		require.Empty(t, d.Error)
		var p Payload
		require.NoError(t, json.Unmarshal(req.body, &p))
		require.Equal(t, event, p.Event)
		require.Equal(t, task.ID, p.TaskID)
		require.Equal(t, "install", p.Kind)
		require.Equal(t, "shop", p.Deployment)
		require.Equal(t, "alice", p.CreatedBy)
		require.Equal(t, "https://styrmin.example/deployments/shop/tasks/"+strconv.FormatInt(task.ID, 10), p.URL)
		require.NotNil(t, p.StartedAt)
	}
	var ended Payload
	require.NoError(t, json.Unmarshal(byID[strconv.FormatInt(list[1].ID, 10)].body, &ended))
	require.Equal(t, executor.TaskSucceeded, ended.Status)
	require.NotNil(t, ended.EndedAt)
}

func TestAWebhookHearsOnlyItsEventsDeploymentsAndKinds(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	ctx := context.Background()
	matching, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL, Secret: testSecret, Events: []Event{Succeeded},
		Deployments: []string{"shop"}, Kinds: []string{"upgrade"}})
	require.NoError(t, err)
	otherKind, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL, Secret: testSecret, Events: []Event{Succeeded}, Kinds: []string{"install"}})
	require.NoError(t, err)
	otherDeployment, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL, Secret: testSecret, Events: []Event{Succeeded}, Deployments: []string{"blog"}})
	require.NoError(t, err)
	otherEvent := b.webhook(t, rcv.URL, Failed, Canceled)

	b.runTask(t, "shop", "upgrade")

	// Deliveries are queued in the transaction that ends the task: once it
	// has ended, every delivery it makes exists.
	require.Len(t, b.deliveries(t, matching.ID, 1), 1)
	for _, w := range []Webhook{otherKind, otherDeployment, otherEvent} {
		_, list, err := b.store.Get(ctx, admin, w.ID)
		require.NoError(t, err)
		require.Empty(t, list, "webhook %d (%v, %v, %v)", w.ID, w.Events, w.Deployments, w.Kinds)
	}
}

func TestADeliveryAnswered500IsTriedAgainAndNeverSentTwiceOnceDelivered(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t, http.StatusInternalServerError)
	w := b.webhook(t, rcv.URL, Succeeded)

	b.runTask(t, "shop", "install")

	d := b.deliveries(t, w.ID, 1)[0]
	require.Equal(t, DeliveryDelivered, d.Status)
	require.Equal(t, 2, d.Attempts)
	require.Equal(t, http.StatusOK, d.StatusCode)
	require.Len(t, d.Log, 2, "the log keeps every attempt, not only the last")
	require.Equal(t, []int{1, 2}, []int{d.Log[0].Number, d.Log[1].Number})
	require.Equal(t, []int{http.StatusInternalServerError, http.StatusOK}, []int{d.Log[0].StatusCode, d.Log[1].StatusCode})
	require.NotEmpty(t, d.Log[0].Error, "the failed attempt says why")
	require.Empty(t, d.Log[1].Error)
	got := rcv.got()
	require.Len(t, got, 2)
	require.Equal(t, got[0].body, got[1].body, "the same body is sent again")
	require.Equal(t, got[0].header.Get(DeliveryHeader), got[1].header.Get(DeliveryHeader), "under the same delivery id")

	// A second job for the delivered delivery (River handing a job out
	// again, say) sends nothing.
	var jobID int64
	require.NoError(t, pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		var err error
		jobID, err = b.queue.InsertJob(context.Background(), tx, deliveryArgs{DeliveryID: d.ID}, nil)
		return err
	}))
	executortest.Wait(t, func(ctx context.Context) (string, error) {
		var state string
		err := b.pool.QueryRow(ctx, "SELECT state FROM river_job WHERE id = $1", jobID).Scan(&state)
		return state, err
	}, func(state string) bool { return state == "completed" })
	require.Len(t, rcv.got(), 2, "nothing more was sent")
}

func TestARedirectToAPrivateAddressIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	private := newReceiver(t)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/internal", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	w := b.webhook(t, redirecting.URL, Succeeded)

	b.runTask(t, "shop", "install")

	d := b.deliveries(t, w.ID, 1)[0]
	require.Equal(t, DeliveryFailed, d.Status, "a refused address is not tried again")
	require.Equal(t, 1, d.Attempts)
	require.Contains(t, d.Error, "a redirect led to a loopback address (127.0.0.1)")
	require.Empty(t, private.got(), "the private address was never reached")
}

func TestTooManyRedirectsFailTheDelivery(t *testing.T) {
	t.Parallel()
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	t.Cleanup(loop.Close)
	// Redirects may lead to loopback here (a test's client), so that only the limit stops them.
	d := &Deliverer{first: client(nil), redirected: client(nil)}

	code, err := d.send(context.Background(), loop.URL, db.WebhookDelivery{ID: 1, Event: "failed", Body: []byte("{}")}, []byte(testSecret))

	var permanent *permanentError
	require.ErrorAs(t, err, &permanent)
	require.EqualError(t, err, "more than 3 redirects")
	require.Equal(t, http.StatusFound, code)
}

func TestNoSecretValueOfTheTaskIsInAPayload(t *testing.T) {
	t.Parallel()
	const secret = "db-password-1234"
	fail := func(context.Context, *executor.Run) (any, error) {
		return nil, errors.New("helm: the value " + secret + " was refused")
	}
	b := setup(t, fail, func(context.Context, db.Task) ([]string, error) { return []string{secret}, nil })
	rcv := newReceiver(t)
	ctx := context.Background()
	w := b.webhook(t, rcv.URL, Failed)
	slack, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL, Secret: testSecret, Events: []Event{Failed}, Format: FormatSlack})
	require.NoError(t, err)

	b.runTask(t, "shop", "install")

	b.deliveries(t, w.ID, 1)
	b.deliveries(t, slack.ID, 1)
	got := rcv.got()
	require.Len(t, got, 2)
	for _, req := range got {
		require.NotContains(t, string(req.body), secret)
	}
	var messages []string
	for _, req := range got {
		var doc struct{ Text, Message string }
		require.NoError(t, json.Unmarshal(req.body, &doc))
		messages = append(messages, doc.Text+doc.Message)
	}
	require.ElementsMatch(t, []string{
		"helm: the value <redacted> was refused",
		"<https://styrmin.example/deployments/shop/tasks/1|Task 1> (install of shop) failed: helm: the value &lt;redacted&gt; was refused",
	}, messages, "the JSON document's message and the Slack message's text")
}

func TestRedeliverSendsTheSameBodyAsANewDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	w := b.webhook(t, rcv.URL, Succeeded)
	b.runTask(t, "shop", "install")
	first := b.deliveries(t, w.ID, 1)[0]

	sent := sentAt(t, rcv.got()[0])
	time.Sleep(time.Until(time.Unix(sent+1, 0))) // the next second, so that a fresh timestamp differs

	again, err := b.store.Redeliver(context.Background(), admin, w.ID, first.ID)
	require.NoError(t, err)

	list := b.deliveries(t, w.ID, 2)
	require.Equal(t, again.ID, list[1].ID)
	require.Equal(t, &first.ID, list[1].RedeliveryOf)
	require.Equal(t, DeliveryDelivered, list[1].Status)
	got := rcv.got()
	require.Len(t, got, 2)
	require.Equal(t, got[0].body, got[1].body)
	require.Equal(t, strconv.FormatInt(again.ID, 10), got[1].header.Get(DeliveryHeader))
	require.Greater(t, sentAt(t, got[1]), sent, "a redelivery is signed with the time it is sent")
	require.NoError(t, Verify([]byte(testSecret), got[1].header, got[1].body, MaxAge))
	_, err = b.store.Redeliver(context.Background(), admin, w.ID+1000, first.ID)
	require.ErrorContains(t, err, "There is no webhook")
}

// TestADeliveryIsSignedOverItsIDTimestampAndBody pins what a receiver
// checks, whatever its language: a delivery carries the time it was sent
// (X-Styrmin-Timestamp, Unix seconds) and its signature is "sha256=" and
// the hex HMAC-SHA256, under the secret, of "<delivery id>.<timestamp>.<body>".
// A signature of the body alone could be replayed for ever, and under any
// delivery id.
func TestADeliveryIsSignedOverItsIDTimestampAndBody(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	w := b.webhook(t, rcv.URL, Succeeded)
	before := time.Now().Unix()

	b.runTask(t, "shop", "install")

	d := b.deliveries(t, w.ID, 1)[0]
	got := rcv.got()
	require.Len(t, got, 1)
	h := got[0].header
	id, timestamp := h.Get("X-Styrmin-Delivery"), h.Get("X-Styrmin-Timestamp")
	require.Equal(t, strconv.FormatInt(d.ID, 10), id)
	sent, err := strconv.ParseInt(timestamp, 10, 64)
	require.NoError(t, err, "the timestamp is Unix seconds")
	require.GreaterOrEqual(t, sent, before)
	require.LessOrEqual(t, sent, time.Now().Unix())
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(got[0].body)
	require.Equal(t, "sha256="+hex.EncodeToString(mac.Sum(nil)), h.Get("X-Styrmin-Signature-256"))
}

// sentAt is the timestamp a delivery was sent with.
func sentAt(t *testing.T, req received) int64 {
	t.Helper()
	sent, err := strconv.ParseInt(req.header.Get(TimestampHeader), 10, 64)
	require.NoError(t, err)
	return sent
}

// TestACapturedDeliveryIsRefusedWhenReplayed: whoever captures a delivery
// (its headers and body) cannot make its receiver act on it again once the
// tolerance has passed, nor present its body and signature as another
// delivery, whose id a receiver that drops handled ids has not seen.
func TestACapturedDeliveryIsRefusedWhenReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	w := b.webhook(t, rcv.URL, Started, Succeeded)

	b.runTask(t, "shop", "install")

	b.deliveries(t, w.ID, 2)
	got := rcv.got()
	require.Len(t, got, 2)
	captured, other := got[0], got[1]
	secret := []byte(testSecret)
	require.NoError(t, Verify(secret, captured.header, captured.body, MaxAge), "the delivery as it was sent")

	later := time.Unix(sentAt(t, captured), 0).Add(MaxAge + time.Second)
	require.ErrorIs(t, verifyAt(secret, captured.header, captured.body, MaxAge, later), ErrTimestamp, "replayed after the tolerance")
	asOther := captured.header.Clone()
	asOther.Set(DeliveryHeader, other.header.Get(DeliveryHeader))
	require.ErrorIs(t, Verify(secret, asOther, captured.body, MaxAge), ErrSignature, "replayed under the id of another delivery")
	asOther.Set(SignatureHeader, other.header.Get(SignatureHeader))
	require.ErrorIs(t, Verify(secret, asOther, captured.body, MaxAge), ErrSignature, "with the other delivery's signature")
}
