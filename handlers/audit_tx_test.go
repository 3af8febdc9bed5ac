package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/views"
)

// txWorld is an app with an admin (root: a session and an API token) and an
// operator (olga: a session, and a second session elsewhere).
type txWorld struct {
	a           *handlerstest.App
	root        handlerstest.Visitor
	rootUser    auth.User
	token       string
	olga        handlerstest.Visitor
	olgaUser    auth.User
	olgaSession int64
	spareToken  int64
}

func newTxWorld(t *testing.T) *txWorld {
	t.Helper()
	ctx := context.Background()
	w := &txWorld{a: handlerstest.Setup(t)}
	w.root, w.rootUser = w.a.As(t, "root", auth.Admin)
	created, err := w.a.Deps.APITokens.Create(ctx, auth.Credential{User: w.rootUser}, "admin", nil)
	require.NoError(t, err)
	w.token = created.Secret
	spare, err := w.a.Deps.APITokens.Create(ctx, auth.Credential{User: w.rootUser}, "spare", nil)
	require.NoError(t, err)
	w.spareToken = spare.ID
	w.olga, w.olgaUser = w.a.As(t, "olga", auth.Operator)
	elsewhere := w.a.Sessions.Load(httptest.NewRequest(http.MethodGet, "/", nil))
	require.NoError(t, w.a.Sessions.Start(ctx, elsewhere, w.olgaUser, "curl/8", "192.0.2.3"))
	require.NoError(t, w.a.Pool.QueryRow(ctx, `SELECT max(id) FROM sessions WHERE user_id = $1`, w.olgaUser.ID).Scan(&w.olgaSession))
	return w
}

// count is the single number query returns.
func (w *txWorld) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, w.a.Pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// signsIn reports whether username signs in with password.
func (w *txWorld) signsIn(username, password string) bool {
	_, err := w.a.Users.SignIn(context.Background(), username, password, "192.0.2.77")
	return err == nil
}

// upload posts a driver bundle on the upload page as root.
func (w *txWorld) upload(t *testing.T) {
	t.Helper()
	archive, err := catalog.Pack(handlerstest.SampleFiles("2.0.0", "", "uploaded"))
	require.NoError(t, err)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField(views.CSRFField, w.root.CSRF))
	fw, err := mw.CreateFormFile("bundle", "sample.tar.gz")
	require.NoError(t, err)
	_, err = fw.Write(archive)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req := httptest.NewRequest(http.MethodPost, "/drivers/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.AddCookie(w.root.Cookie)
	w.a.Echo.ServeHTTP(httptest.NewRecorder(), req)
}

// TestEveryKindOfChangeIsRecordedInItsTransaction: users, API tokens,
// sessions (sign-in, sign-out, ending one), passwords, driver uploads and
// the chart hosts write their entry in the transaction of their change.
// When the entry cannot be written, the change is not made either and the
// request's one entry says it failed; when it can, the change leaves exactly
// one allowed entry.
func TestEveryKindOfChangeIsRecordedInItsTransaction(t *testing.T) {
	t.Parallel()
	const newPassword = "a brand new password, long enough"
	for _, tc := range []struct {
		// name says which change, through which adapter; action is its audit action.
		name, action string
		// change makes the change through the pages or the API.
		change func(t *testing.T, w *txWorld)
		// made reports whether the change is in the database.
		made func(t *testing.T, w *txWorld) bool
	}{
		{"user.create", audit.ActionUserCreate, func(t *testing.T, w *txWorld) {
			w.a.Call(t, w.token, http.MethodPost, "/api/v1/users", map[string]any{"username": "carl", "role": "operator", "password": handlerstest.TestPassword})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM users WHERE username = 'carl'`) == 1
		}},
		{"user.update: a role, through the API", audit.ActionUserUpdate, func(t *testing.T, w *txWorld) {
			w.a.Call(t, w.token, http.MethodPatch, fmt.Sprintf("/api/v1/users/%d", w.olgaUser.ID), map[string]any{"role": "admin"})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM users WHERE id = $1 AND role = 'admin'`, w.olgaUser.ID) == 1
		}},
		{"user.update: disabled, on the users page", audit.ActionUserUpdate, func(t *testing.T, w *txWorld) {
			w.a.Request(w.root, http.MethodPost, fmt.Sprintf("/users/%d/disable", w.olgaUser.ID), url.Values{})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM users WHERE id = $1 AND disabled`, w.olgaUser.ID) == 1
		}},
		{"user.update: a password, on the users page", audit.ActionUserUpdate, func(t *testing.T, w *txWorld) {
			w.a.Request(w.root, http.MethodPost, fmt.Sprintf("/users/%d/password", w.olgaUser.ID), url.Values{"password": {newPassword}})
		}, func(t *testing.T, w *txWorld) bool { return w.signsIn("olga", newPassword) }},
		{"password.change", audit.ActionPasswordChange, func(t *testing.T, w *txWorld) {
			w.a.Request(w.olga, http.MethodPost, "/account/password", url.Values{"current_password": {handlerstest.TestPassword}, "password": {newPassword}, "confirm": {newPassword}})
		}, func(t *testing.T, w *txWorld) bool { return w.signsIn("olga", newPassword) }},
		{"token.create", audit.ActionTokenCreate, func(t *testing.T, w *txWorld) {
			w.a.Call(t, w.token, http.MethodPost, "/api/v1/tokens", map[string]any{"name": "ci"})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM api_tokens WHERE name = 'ci'`) == 1
		}},
		{"token.revoke", audit.ActionTokenRevoke, func(t *testing.T, w *txWorld) {
			w.a.Call(t, w.token, http.MethodDelete, fmt.Sprintf("/api/v1/tokens/%d", w.spareToken), nil)
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM api_tokens WHERE id = $1`, w.spareToken) == 0
		}},
		{"signin", audit.ActionSignin, func(t *testing.T, w *txWorld) {
			w.a.SigninFrom(w.a.Anonymous(t), "192.0.2.44", "olga", handlerstest.TestPassword)
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM sessions WHERE user_id = $1 AND address = '192.0.2.44'`, w.olgaUser.ID) == 1
		}},
		{"signout", audit.ActionSignout, func(t *testing.T, w *txWorld) {
			w.a.Request(w.olga, http.MethodPost, "/signout", url.Values{})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM sessions WHERE user_id = $1`, w.olgaUser.ID) == 1
		}},
		{"session.end", audit.ActionSessionEnd, func(t *testing.T, w *txWorld) {
			w.a.Request(w.olga, http.MethodPost, fmt.Sprintf("/account/sessions/%d/end", w.olgaSession), url.Values{})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM sessions WHERE id = $1`, w.olgaSession) == 0
		}},
		{"chart_hosts.update", audit.ActionChartHostsUpdate, func(t *testing.T, w *txWorld) {
			w.a.Request(w.root, http.MethodPost, "/settings/chart-hosts", url.Values{"hosts": {"charts.internal"}})
		}, func(t *testing.T, w *txWorld) bool {
			return w.count(t, `SELECT count(*) FROM settings WHERE name = 'chart_hosts'`) == 1
		}},
		{"driver.upload", audit.ActionDriverUpload, func(t *testing.T, w *txWorld) { w.upload(t) },
			func(t *testing.T, w *txWorld) bool {
				return w.count(t, `SELECT count(*) FROM driver_versions WHERE name = 'sample'`) == 1
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newTxWorld(t)
			ctx := context.Background()
			entries := func() []audit.Entry {
				before := newestID(t, w.a.Audit)
				tc.change(t, w)
				return slices.DeleteFunc(entriesSince(t, w.a.Audit, before), func(e audit.Entry) bool { return e.Action != tc.action })
			}
			// The log refuses this action's allowed entry: the change must not happen.
			_, err := w.a.Pool.Exec(ctx, fmt.Sprintf(`CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN IF NEW.action = %s AND NEW.outcome = 'allowed' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
				CREATE TRIGGER refuse_entry BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_entry()`, quote(tc.action)))
			require.NoError(t, err)
			failed := entries()
			require.Len(t, failed, 1, "the failed change leaves one entry")
			require.Equal(t, audit.Failed, failed[0].Outcome)
			require.False(t, tc.made(t, w), "a change whose entry could not be written is not made")

			_, err = w.a.Pool.Exec(ctx, `DROP TRIGGER refuse_entry ON audit_entries`)
			require.NoError(t, err)
			allowed := entries()
			require.Len(t, allowed, 1, "the change leaves exactly one entry")
			require.Equal(t, audit.Allowed, allowed[0].Outcome, allowed[0].Reason)
			require.NotEmpty(t, allowed[0].Target.Name, "the entry names its target")
			require.True(t, tc.made(t, w), "the change is made")
		})
	}
}

// quote is s as an SQL string literal (s has no quotes).
func quote(s string) string { return "'" + s + "'" }
