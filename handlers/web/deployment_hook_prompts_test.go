package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

// hookedForm is a valid install form of the hooked driver.
func hookedForm(name string) url.Values {
	return url.Values{"name": {name}, "driver_version": {"1.0.0"}, "app_version": {"1.0.0"}, "param.size": {"1"},
		"prompt.seed.rows": {"5"}, "prompt.seed.api_key": {handlerstest.PromptSecret}}
}

func TestInstallFormHasASectionPerHookActionWithItsPrompts(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	handlerstest.ImportHooked(t, d)
	rec := d.Request(d.Operator, http.MethodGet, "/drivers/hooked/deploy", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	sections := doc.Find(`[data-testid="hook-action"]`)
	require.Equal(t, 1, sections.Length(), "only the install's actions")
	require.Equal(t, "seed", sections.AttrOr("data-action", ""))
	require.Equal(t, "Before install: Seed the data", handlerstest.Text(sections.Find("h2")))
	require.Equal(t, "sample", handlerstest.Text(sections.Find("strong")), "the description is Markdown")
	require.Equal(t, "prompt.seed.rows", doc.Find("#prompt-seed-rows").AttrOr("name", ""))
	require.Equal(t, "3", doc.Find("#prompt-seed-rows").AttrOr("value", ""), "a prompt starts from its default")
	require.Equal(t, "password", doc.Find("#prompt-seed-api_key").AttrOr("type", ""), "a secret prompt is a password input")
}

func TestInstallRefusesABadPromptNextToItsFieldAndSealsSecretOnes(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	handlerstest.ImportHooked(t, d)
	form := hookedForm("data")
	form.Set("prompt.seed.rows", "20")
	rec := d.Request(d.Operator, http.MethodPost, "/drivers/hooked/deploy", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "20 is more than the maximum 10", fieldError(doc, "prompt-seed-rows"))
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-summary"]`)), "Rows: 20 is more than the maximum 10")
	require.Equal(t, "20", doc.Find("#prompt-seed-rows").AttrOr("value", ""), "the entered prompt is kept")
	require.NotContains(t, rec.Body.String(), handlerstest.PromptSecret, "a secret prompt is never sent back")

	rec = d.Request(d.Operator, http.MethodPost, "/drivers/hooked/deploy", hookedForm("data"))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	task := d.TasksOf(t, "data")[0]
	require.Equal(t, map[string]map[string]any{"seed": {"rows": float64(5)}}, deploymenttest.Inputs[*deployment.InstallInputs](t, &task).Prompts)
	page := d.Request(d.Operator, http.MethodGet, "/deployments/data", nil)
	require.Equal(t, http.StatusOK, page.Code)
	require.NotContains(t, page.Body.String(), handlerstest.PromptSecret)
}

func TestUpgradeFormAsksThePromptsOfTheUpgradesActions(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	rec := d.Request(d.Operator, http.MethodGet, "/deployments/orders/upgrade", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Before upgrade: Back up the database", handlerstest.Text(doc.Find(`[data-testid="hook-action"] h2`)))
	require.Equal(t, "pre-upgrade", doc.Find("#prompt-backup-label").AttrOr("value", ""))

	form := url.Values{"driver_version": {"1.2.0"}, "app_version": {"16.4.0"}, "param.database": {"app"},
		"prompt.backup.label": {"Not A Label"}, "prompt.backup.database": {"app"}}
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/upgrade/review", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Contains(t, fieldError(handlerstest.Parse(t, rec), "prompt-backup-label"), "does not match the pattern")

	form.Set("prompt.backup.label", "nightly")
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/upgrade/review", form)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	review := handlerstest.Parse(t, rec)
	label := review.Find(`[data-testid="review-prompt"][data-action="backup"][data-name="label"] td`)
	require.Equal(t, []string{"Before upgrade: Back up the database", "Backup label", "nightly"}, handlerstest.Texts(label), "the review says what the action will run with")
	token := review.Find(`input[name="review"]`).AttrOr("value", "")
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/upgrade/edit", url.Values{"review": {token}})
	require.Equal(t, "nightly", handlerstest.Parse(t, rec).Find("#prompt-backup-label").AttrOr("value", ""), "Back keeps the entered prompts")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/upgrade", url.Values{"review": {token}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	upgrade := d.TasksOf(t, "orders")[0]
	require.Equal(t, map[string]map[string]any{"backup": {"label": "nightly", "database": "app"}}, deploymenttest.Inputs[*deployment.UpgradeInputs](t, &upgrade).Prompts)
}

func TestDeleteFormAsksThePromptsOfTheDeletesActions(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	handlerstest.ImportHooked(t, d)
	d.Install(t, &deployment.Install{Driver: "hooked", DriverVersion: "1.0.0", Name: "data", AppVersion: "1.0.0",
		Prompts: deployment.FormPrompts{"seed": {"api_key": handlerstest.PromptSecret}}})
	rec := d.Request(d.Operator, http.MethodGet, "/deployments/data/delete", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Before delete: Archive the data", handlerstest.Text(doc.Find(`[data-testid="hook-action"] h2`)))
	require.Equal(t, "backups", doc.Find("#prompt-archive-bucket").AttrOr("value", ""))

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/data/delete", url.Values{"confirm": {"data"}, "prompt.archive.bucket": {"old"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, "Archive token is required", fieldError(doc, "prompt-archive-token"))
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-summary"]`)), "Archive token is required")
	require.Empty(t, fieldError(doc, "delete-confirm"), "the name was confirmed")
	require.Equal(t, "data", doc.Find("#delete-confirm").AttrOr("value", ""))
	require.Equal(t, "old", doc.Find("#prompt-archive-bucket").AttrOr("value", ""))

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/data/delete", url.Values{"confirm": {"data"}, "prompt.archive.token": {handlerstest.PromptSecret}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	task := d.TasksOf(t, "data")[0]
	require.Equal(t, deployment.KindDelete, task.Kind)
	require.Equal(t, map[string]map[string]any{"archive": {"bucket": "backups"}}, deploymenttest.Inputs[*deployment.DeleteInputs](t, &task).Prompts)
	page := d.Request(d.Operator, http.MethodGet, "/deployments/data", nil)
	require.NotContains(t, page.Body.String(), handlerstest.PromptSecret)
}
