package handlers

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
)

// hookedDriver is a driver whose install and delete run actions that ask
// prompts, one of them secret.
const hookedDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: hooked
  labels: {category: test}
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  info:
    title: Hooked
  helm:
    main:
      location: oci://registry.example.com/charts/hooked
      version: 1.0.0
  parameters:
    - {name: size, type: integer, default: 1}
  actions:
    - name: seed
      title: Seed the data
      description: Loads **sample** rows.
      hook: pre-install
      function: "actions:seed"
      prompts:
        - {name: rows, title: Rows, type: integer, default: 3, min: 1, max: 10}
        - {name: api_key, title: API key, type: secret, required: true}
    - name: archive
      title: Archive the data
      hook: pre-delete
      function: "actions:archive"
      prompts:
        - {name: bucket, title: Bucket, type: string, default: backups}
        - {name: token, title: Archive token, type: secret, required: true}
`

// promptSecret is a secret prompt value that must never come back in a page.
const promptSecret = "pr0mpt-s3cret-never-shown"

// importHooked imports the hooked driver into d's catalogue.
func importHooked(t *testing.T, d deployApp) {
	t.Helper()
	fsys := fstest.MapFS{
		"hooked/driver.styrmin.yml": {Data: []byte(hookedDriver)},
		"hooked/actions.py":         {Data: []byte("def seed(rows, api_key):\n    pass\n\n\ndef archive(bucket, token):\n    pass\n")},
	}
	_, err := d.deps.Drivers.(*catalog.Catalog).ImportFS(context.Background(), fsys, "hooked", "test")
	require.NoError(t, err)
}

// hookedForm is a valid install form of the hooked driver.
func hookedForm(name string) url.Values {
	return url.Values{"name": {name}, "driver_version": {"1.0.0"}, "app_version": {"1.0.0"}, "param.size": {"1"},
		"prompt.seed.rows": {"5"}, "prompt.seed.api_key": {promptSecret}}
}

func TestInstallFormHasASectionPerHookActionWithItsPrompts(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	importHooked(t, d)
	rec := d.request(d.operator, http.MethodGet, "/drivers/hooked/deploy", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := parse(t, rec)
	sections := doc.Find(`[data-testid="hook-action"]`)
	require.Equal(t, 1, sections.Length(), "only the install's actions")
	require.Equal(t, "seed", sections.AttrOr("data-action", ""))
	require.Equal(t, "Before install: Seed the data", text(sections.Find("h2")))
	require.Equal(t, "sample", text(sections.Find("strong")), "the description is Markdown")
	require.Equal(t, "prompt.seed.rows", doc.Find("#prompt-seed-rows").AttrOr("name", ""))
	require.Equal(t, "3", doc.Find("#prompt-seed-rows").AttrOr("value", ""), "a prompt starts from its default")
	require.Equal(t, "password", doc.Find("#prompt-seed-api_key").AttrOr("type", ""), "a secret prompt is a password input")
}

func TestInstallRefusesABadPromptNextToItsFieldAndSealsSecretOnes(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	importHooked(t, d)
	form := hookedForm("data")
	form.Set("prompt.seed.rows", "20")
	rec := d.request(d.operator, http.MethodPost, "/drivers/hooked/deploy", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := parse(t, rec)
	require.Equal(t, "20 is more than the maximum 10", fieldError(doc, "prompt-seed-rows"))
	require.Contains(t, text(doc.Find(`[data-testid="error-summary"]`)), "Rows: 20 is more than the maximum 10")
	require.Equal(t, "20", doc.Find("#prompt-seed-rows").AttrOr("value", ""), "the entered prompt is kept")
	require.NotContains(t, rec.Body.String(), promptSecret, "a secret prompt is never sent back")

	rec = d.request(d.operator, http.MethodPost, "/drivers/hooked/deploy", hookedForm("data"))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	task := d.tasksOf(t, "data")[0]
	require.Equal(t, map[string]any{"seed": map[string]any{"rows": float64(5)}}, task.Inputs["prompts"])
	page := d.request(d.operator, http.MethodGet, "/deployments/data", nil)
	require.Equal(t, http.StatusOK, page.Code)
	require.NotContains(t, page.Body.String(), promptSecret)
}

func TestUpgradeFormAsksThePromptsOfTheUpgradesActions(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	d.install(t, pgInstall("orders"))
	rec := d.request(d.operator, http.MethodGet, "/deployments/orders/upgrade", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := parse(t, rec)
	require.Equal(t, "Before upgrade: Back up the database", text(doc.Find(`[data-testid="hook-action"] h2`)))
	require.Equal(t, "pre-upgrade", doc.Find("#prompt-backup-label").AttrOr("value", ""))

	form := url.Values{"driver_version": {"1.0.0"}, "app_version": {"16.4.0"}, "param.database": {"app"},
		"prompt.backup.label": {"Not A Label"}, "prompt.backup.database": {"app"}}
	rec = d.request(d.operator, http.MethodPost, "/deployments/orders/upgrade/review", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Contains(t, fieldError(parse(t, rec), "prompt-backup-label"), "does not match the pattern")

	form.Set("prompt.backup.label", "nightly")
	rec = d.request(d.operator, http.MethodPost, "/deployments/orders/upgrade/review", form)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	review := parse(t, rec)
	label := review.Find(`[data-testid="review-prompt"][data-action="backup"][data-name="label"] td`)
	require.Equal(t, []string{"Before upgrade: Back up the database", "Backup label", "nightly"}, texts(label), "the review says what the action will run with")
	token := review.Find(`input[name="review"]`).AttrOr("value", "")
	rec = d.request(d.operator, http.MethodPost, "/deployments/orders/upgrade/edit", url.Values{"review": {token}})
	require.Equal(t, "nightly", parse(t, rec).Find("#prompt-backup-label").AttrOr("value", ""), "Back keeps the entered prompts")

	rec = d.request(d.operator, http.MethodPost, "/deployments/orders/upgrade", url.Values{"review": {token}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, map[string]any{"backup": map[string]any{"label": "nightly", "database": "app"}}, d.tasksOf(t, "orders")[0].Inputs["prompts"])
}

func TestDeleteFormAsksThePromptsOfTheDeletesActions(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	importHooked(t, d)
	d.install(t, deployment.InstallRequest{Driver: "hooked", DriverVersion: "1.0.0", Name: "data", AppVersion: "1.0.0",
		Prompts: map[string]map[string]string{"seed": {"api_key": promptSecret}}})
	rec := d.request(d.operator, http.MethodGet, "/deployments/data/delete", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := parse(t, rec)
	require.Equal(t, "Before delete: Archive the data", text(doc.Find(`[data-testid="hook-action"] h2`)))
	require.Equal(t, "backups", doc.Find("#prompt-archive-bucket").AttrOr("value", ""))

	rec = d.request(d.operator, http.MethodPost, "/deployments/data/delete", url.Values{"confirm": {"data"}, "prompt.archive.bucket": {"old"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc = parse(t, rec)
	require.Equal(t, "Archive token is required", fieldError(doc, "prompt-archive-token"))
	require.Contains(t, text(doc.Find(`[data-testid="error-summary"]`)), "Archive token is required")
	require.Empty(t, fieldError(doc, "delete-confirm"), "the name was confirmed")
	require.Equal(t, "data", doc.Find("#delete-confirm").AttrOr("value", ""))
	require.Equal(t, "old", doc.Find("#prompt-archive-bucket").AttrOr("value", ""))

	rec = d.request(d.operator, http.MethodPost, "/deployments/data/delete", url.Values{"confirm": {"data"}, "prompt.archive.token": {promptSecret}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	task := d.tasksOf(t, "data")[0]
	require.Equal(t, deployment.KindDelete, task.Kind)
	require.Equal(t, map[string]any{"archive": map[string]any{"bucket": "backups"}}, task.Inputs["prompts"])
	page := d.request(d.operator, http.MethodGet, "/deployments/data", nil)
	require.NotContains(t, page.Body.String(), promptSecret)
}
