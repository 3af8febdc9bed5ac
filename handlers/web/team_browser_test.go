package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/teams"
)

// TestBrowserAnAdminMakesATeamAndManagesItsMembersAndPolicy drives a real
// Chromium through the Teams pages as an admin, all in one document (no page
// load): the team made from the teams page opens its own page; bob is added
// as operator, made read-only and, after a confirm, taken out again; a CPU
// quota it cannot read is said at its field with what was typed kept, and
// the corrected policy, with no driver at all, is saved and shown back.
func TestBrowserAnAdminMakesATeamAndManagesItsMembersAndPolicy(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	bg := context.Background()
	for name, role := range map[string]auth.Role{"ada": auth.Admin, "bob": auth.Member} {
		_, err := env.Users.Create(bg, auth.NewUser{Username: name, Password: handlerstest.CatalogPassword, Role: role})
		require.NoError(t, err)
	}
	store := env.Teams
	members := func() []string {
		t.Helper()
		list, err := store.Members(bg, "payments")
		require.NoError(t, err)
		out := []string{}
		for _, m := range list {
			out = append(out, m.Username+" "+m.Role.String())
		}
		return out
	}
	browser := handlerstest.NewBrowser(t)
	flash := `document.querySelector('[data-testid="flash"]').textContent`
	sameDocument := func(what string) {
		t.Helper()
		require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "%s without a page load", what)
	}

	handlerstest.Step(t, browser, "sign in and open the teams",
		handlerstest.SignIn(env.URL+"/signin", "ada", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
		chromedp.Click(chromedp.CSS(`nav a[href="/teams"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-team-form"]`)),
	)
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	handlerstest.Step(t, browser, "make the team payments",
		chromedp.SendKeys(chromedp.CSS(`#new-team-name`), "payments"),
		chromedp.Click(chromedp.CSS(`[data-testid="create-team"]`)),
	)
	handlerstest.WaitFor(t, browser, "the team's page opens", `document.querySelector('[data-testid="team-name"]')?.textContent === 'payments' && location.pathname === '/teams/payments'`)
	sameDocument("the team's page came")
	require.Contains(t, handlerstest.Eval[string](t, browser, flash), "The team payments is made: add its members.")
	require.Contains(t, handlerstest.Eval[string](t, browser, `document.title`), "payments")

	handlerstest.Step(t, browser, "add bob as operator",
		chromedp.SendKeys(chromedp.CSS(`#new-member-username`), "bob"),
		chromedp.SetValue(chromedp.CSS(`#new-member-role`), "operator"),
		chromedp.Click(chromedp.CSS(`[data-testid="add-member"]`)),
	)
	bobsRole := `document.querySelector('[data-testid="member-bob"] [data-testid="member-role-select"]')`
	handlerstest.WaitFor(t, browser, "bob is a member", bobsRole+`?.value === 'operator'`)
	sameDocument("bob was added")
	require.Contains(t, handlerstest.Eval[string](t, browser, flash), "bob is operator in the team payments.")
	require.Equal(t, "", handlerstest.Eval[string](t, browser, `document.querySelector('#new-member-username').value`), "the add form is empty again")
	require.Equal(t, []string{"bob operator"}, members())

	handlerstest.Step(t, browser, "make bob read-only",
		chromedp.SetValue(chromedp.CSS(`[data-testid="member-bob"] [data-testid="member-role-select"]`), "read-only"),
		chromedp.Click(chromedp.CSS(`[data-testid="member-bob"] [data-testid="member-role-save"]`)),
	)
	handlerstest.WaitFor(t, browser, "bob's role is changed", flash+`.includes('bob is read-only in the team payments.')`)
	sameDocument("bob's role was changed")
	require.Equal(t, "read-only", handlerstest.Eval[string](t, browser, bobsRole+`.value`))
	require.Equal(t, []string{"bob read-only"}, members())

	confirms := handlerstest.AcceptDialogs(browser)
	handlerstest.Step(t, browser, "take bob out", chromedp.Click(chromedp.CSS(`[data-testid="member-bob"] [data-testid="member-remove"]`)))
	require.Equal(t, "Take bob out of the team payments? They no longer see its deployments, unless their own role reads every team's.", <-confirms, "the page asked first")
	handlerstest.WaitFor(t, browser, "bob is gone", `document.querySelector('[data-testid="member-bob"]') === null`)
	sameDocument("bob was taken out")
	require.Contains(t, handlerstest.Eval[string](t, browser, flash), "bob is no longer a member of the team payments.")
	require.Empty(t, members())

	handlerstest.Step(t, browser, "set a CPU quota it cannot read",
		chromedp.SendKeys(chromedp.CSS(`#policy-cpu`), "two cores"),
		chromedp.SendKeys(chromedp.CSS(`#policy-memory`), "4Gi"),
		chromedp.Click(chromedp.CSS(`[data-testid="save-policy"]`)),
	)
	cpuError := `document.querySelector('[data-testid="error-max_cpu_millis"]')`
	handlerstest.WaitFor(t, browser, "the field says why", cpuError+`?.textContent.includes('Give CPU as Kubernetes writes it (2, 500m)')`)
	sameDocument("the error came")
	require.True(t, handlerstest.Eval[bool](t, browser, cpuError+`.closest('.field').contains(document.querySelector('#policy-cpu'))`), "the error is at the CPU field")
	require.Equal(t, "true", handlerstest.Eval[string](t, browser, `document.querySelector('#policy-cpu').getAttribute('aria-invalid')`))
	require.Equal(t, "two cores", handlerstest.Eval[string](t, browser, `document.querySelector('#policy-cpu').value`), "the form keeps what was typed")
	require.Equal(t, "4Gi", handlerstest.Eval[string](t, browser, `document.querySelector('#policy-memory').value`))
	team, err := store.Get(bg, "payments")
	require.NoError(t, err)
	require.Equal(t, teams.Policy{}, team.Policy, "the refused policy changed nothing")

	handlerstest.Step(t, browser, "correct the CPU quota, allow no driver at all, and save",
		chromedp.Clear(chromedp.CSS(`#policy-cpu`)),
		chromedp.SendKeys(chromedp.CSS(`#policy-cpu`), "1500m"),
		chromedp.Click(chromedp.CSS(`[data-testid="drivers-none"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="save-policy"]`)),
	)
	handlerstest.WaitFor(t, browser, "the policy is saved", flash+`.includes('The policy of the team payments is saved')`)
	sameDocument("the policy was saved")
	require.False(t, handlerstest.Eval[bool](t, browser, cpuError+` !== null`), "the error is gone")
	require.Equal(t, "1500m", handlerstest.Eval[string](t, browser, `document.querySelector('#policy-cpu').value`))
	require.True(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="drivers-none"]').checked`))
	team, err = store.Get(bg, "payments")
	require.NoError(t, err)
	cpu, memory := int64(1500), int64(4<<30)
	require.Equal(t, teams.Policy{Drivers: []string{}, MaxCPUMillis: &cpu, MaxMemoryBytes: &memory}, team.Policy)
}
