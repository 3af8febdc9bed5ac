package views

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
)

// field finds the parameter field of name on a rendered form.
func field(doc *goquery.Document, name string) *goquery.Selection {
	return doc.Find(`[data-testid="param-field"][data-name="` + name + `"]`)
}

func TestParameterFieldsRenderEachType(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, ParameterFieldset(sampleGroups()))

	title := field(doc, "title").Find(`input#param-title`)
	require.Equal(t, "text", title.AttrOr("type", ""))
	require.Equal(t, "param.title", title.AttrOr("name", ""))
	require.Equal(t, "My <site>", title.AttrOr("value", ""), "the entered value is kept")
	require.Equal(t, "3", title.AttrOr("minlength", ""))
	require.Equal(t, "40", title.AttrOr("maxlength", ""))
	_, required := title.Attr("required")
	require.True(t, required)
	require.Equal(t, "Site title* (required)", strings.Join(strings.Fields(field(doc, "title").Find("label").Text()), " "))
	require.Equal(t, "header", field(doc, "title").Find(`#param-title-help em`).Text(), "the description is help text")
	require.Equal(t, "3 to 40 characters; matches [A-Za-z ]+", strings.Join(strings.Fields(field(doc, "title").Find(`[data-testid="field-hint"]`).Text()), " "))
	require.Equal(t, "param-title-help param-title-hint", title.AttrOr("aria-describedby", ""))

	motd := field(doc, "motd").Find("textarea")
	require.Equal(t, "param.motd", motd.AttrOr("name", ""))
	require.Equal(t, "line 1\nline 2", motd.Text())

	replicas := field(doc, "replicas").Find("input")
	require.Equal(t, "number", replicas.AttrOr("type", ""))
	require.Equal(t, "1", replicas.AttrOr("min", ""))
	require.Equal(t, "9", replicas.AttrOr("max", ""))
	require.Equal(t, "1", replicas.AttrOr("step", ""))
	require.Equal(t, "any", field(doc, "cpu").Find("input").AttrOr("step", ""))

	metrics := field(doc, "metrics").Find(`input[type="checkbox"]`)
	require.Equal(t, "true", metrics.AttrOr("value", ""))
	require.Equal(t, "param.metrics", metrics.AttrOr("name", ""))
	_, checked := metrics.Attr("checked")
	require.True(t, checked)
	_, checked = field(doc, "debug").Find(`input[type="checkbox"]`).Attr("checked")
	require.False(t, checked)

	size := field(doc, "size").Find("select")
	require.Equal(t, "param.size", size.AttrOr("name", ""))
	require.Equal(t, 3, size.Find("option").Length(), "a required enum has no empty choice")
	require.Equal(t, "20Gi", size.Find("option[selected]").AttrOr("value", ""))
	require.Equal(t, "50 GiB", size.Find(`option[value="50Gi"]`).Text())

	groups := doc.Find(`fieldset[data-testid="param-group"] > legend`)
	require.Equal(t, []string{"Resources", "Security"}, groups.Map(func(_ int, s *goquery.Selection) string { return s.Text() }))
	require.Equal(t, 0, doc.Find(`fieldset [data-name="title"]`).Length(), "ungrouped parameters come outside any fieldset")
}

func TestSecretFieldsNeverCarryAValue(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, ParameterFieldset(sampleGroups()))
	html, err := doc.Html()
	require.NoError(t, err)
	require.NotContains(t, html, leakedSecret)

	password := field(doc, "password").Find("input")
	require.Equal(t, "password", password.AttrOr("type", ""))
	require.Equal(t, "new-password", password.AttrOr("autocomplete", ""))
	_, hasValue := password.Attr("value")
	require.False(t, hasValue, "a secret input has no value attribute at all")
	_, hasPlaceholder := password.Attr("placeholder")
	require.False(t, hasPlaceholder, "a secret without a value yet has no 'unchanged' placeholder")

	kept := field(doc, "root_key").Find("input")
	require.Equal(t, "unchanged — leave blank to keep", kept.AttrOr("placeholder", ""))
	_, required := kept.Attr("required")
	require.False(t, required, "a kept secret may stay blank")
	_, hasValue = kept.Attr("value")
	require.False(t, hasValue)
}

func TestLockedParametersAreReadOnlyAndStillSent(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, ParameterFieldset(sampleGroups()))

	sc := field(doc, "storage_class")
	_, readonly := sc.Find("input#param-storage_class").Attr("readonly")
	require.True(t, readonly)
	require.Equal(t, "fast", sc.Find("input").AttrOr("value", ""))
	require.Contains(t, sc.Find(`[data-testid="lock-note"]`).Text(), "set at install; cannot change")
	require.Contains(t, sc.Find("input").AttrOr("aria-describedby", ""), "param-storage_class-lock")

	engine := field(doc, "engine")
	_, disabled := engine.Find("select").Attr("disabled")
	require.True(t, disabled, "a select cannot be read-only: it is disabled")
	require.Equal(t, "b", engine.Find(`input[type="hidden"][name="param.engine"]`).AttrOr("value", ""), "and its value travels in a hidden field")
	require.Empty(t, engine.Find("select").AttrOr("name", ""))

	tls := field(doc, "tls")
	_, disabled = tls.Find(`input[type="checkbox"]`).Attr("disabled")
	require.True(t, disabled)
	require.Equal(t, "true", tls.Find(`input[type="hidden"][name="param.tls"]`).AttrOr("value", ""))
}

func TestInstallFormShowsErrorsNextToFieldsAndInASummary(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentInstallPage(sampleInstall(operator)))
	form := doc.Find(`form[data-testid="install-form"]`)
	require.Equal(t, "post", form.AttrOr("method", ""))
	require.Equal(t, "/drivers/redis/deploy", form.AttrOr("action", ""))
	require.Equal(t, "tok", form.Find(`input[name="_csrf"]`).AttrOr("value", ""))

	name := form.Find(`input[name="name"]`)
	require.Equal(t, "Cache!", name.AttrOr("value", ""), "the refused value is kept")
	require.Equal(t, "true", name.AttrOr("aria-invalid", ""))
	require.Equal(t, "49", name.AttrOr("maxlength", ""))
	require.Contains(t, name.AttrOr("aria-describedby", ""), "deploy-name-error")
	require.Contains(t, form.Find("#deploy-name-error").Text(), "DNS label")
	require.Contains(t, form.Find("#deploy-name-hint").Text(), "Helm release name")
	require.Equal(t, "defaults to the name", form.Find(`input[name="namespace"]`).AttrOr("placeholder", ""))
	_, invalid := form.Find(`input[name="namespace"]`).Attr("aria-invalid")
	require.False(t, invalid)

	replicas := field(doc, "replicas")
	require.Equal(t, "true", replicas.Find("input").AttrOr("aria-invalid", ""))
	require.Equal(t, "Replicas must be at most 9", replicas.Find(`#param-replicas-error`).Text())
	require.True(t, strings.HasPrefix(replicas.Find("input").AttrOr("aria-describedby", ""), "param-replicas-error"))

	var links []string
	doc.Find(`[data-testid="error-summary"] a`).Each(func(_ int, s *goquery.Selection) {
		links = append(links, s.AttrOr("href", ""))
		require.Equal(t, 1, doc.Find(s.AttrOr("href", "")).Length(), "each summary link points at its field")
	})
	require.Equal(t, []string{"#deploy-name", "#param-replicas"}, links)

	version := form.Find(`select[name="driver_version"]`)
	require.Equal(t, "1.1.0", version.Find("option[selected]").AttrOr("value", ""))
	require.Equal(t, "/drivers/redis/deploy", version.AttrOr("hx-get", ""))
	require.Equal(t, "#deploy-form", version.AttrOr("hx-target", ""))
	include := version.AttrOr("hx-include", "")
	require.Contains(t, include, "input:not([type=password])", "a version change never puts a secret into the URL")
	require.Contains(t, include, "textarea")

	app := form.Find(`input[name="app_version"]`)
	require.Equal(t, "7.2.4", app.AttrOr("value", ""))
	require.Equal(t, 3, doc.Find("datalist#"+app.AttrOr("list", "")+" option").Length())
	require.Equal(t, ">=7.0, <8", doc.Find(`[data-testid="app-version-constraint"]`).Text())
}

func TestUpgradeFormPostsToTheReviewAndListsRemovedParameters(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentUpgradePage(sampleUpgrade(operator)))
	form := doc.Find(`form[data-testid="upgrade-form"]`)
	require.Equal(t, "/deployments/cache/upgrade/review", form.AttrOr("action", ""))
	require.Equal(t, "/deployments/cache/upgrade", form.Find(`select[name="driver_version"]`).AttrOr("hx-get", ""))
	require.Equal(t, 0, form.Find(`input[name="name"], input[name="namespace"]`).Length(), "name and namespace cannot change")
	require.Contains(t, doc.Find(`[data-testid="removed-param"]`).Text(), "Legacy mode")
	html, err := doc.Html()
	require.NoError(t, err)
	require.NotContains(t, html, leakedSecret)
	require.Equal(t, "#param-replicas", doc.Find(`[data-testid="error-summary"] a`).AttrOr("href", ""), "the summary lists the parameter error")
}

func TestDeletePageAsksForTheName(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentDeletePage(DeploymentDeleteProps{
		Page: Page{User: operator, CSRFToken: "tok"}, Name: "cache", Namespace: "apps",
	}))
	form := doc.Find(`form[data-testid="delete-form"]`)
	require.Equal(t, "/deployments/cache/delete", form.AttrOr("action", ""))
	require.Equal(t, 1, form.Find(`input[name="confirm"]`).Length())
	require.Empty(t, doc.Find(`[data-testid="field-error"]`).Nodes)
	require.Contains(t, doc.Find(`[data-testid="delete-effects"]`).Text(), "stays: Styrmin did not create it")

	doc = renderDoc(t, DeploymentDeletePage(DeploymentDeleteProps{
		Page: Page{User: operator}, Name: "cache", Namespace: "cache", NamespaceCreated: true, Confirm: "cach", Error: "Type cache to delete it.",
	}))
	in := doc.Find(`input[name="confirm"]`)
	require.Equal(t, "cach", in.AttrOr("value", ""))
	require.Equal(t, "true", in.AttrOr("aria-invalid", ""))
	require.Equal(t, "Type cache to delete it.", doc.Find("#"+in.AttrOr("aria-describedby", "")).Text())
	require.Contains(t, doc.Find(`[data-testid="delete-effects"]`).Text(), "is removed, because Styrmin created it")
}

func TestTextareaKeepsALeadingNewline(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, ParameterFieldset([]ParamGroup{{Fields: []ParamField{{Name: "t", Type: "text", Value: "\nsecond line"}}}}))
	require.Equal(t, "\nsecond line", doc.Find("textarea").Text())
}

func TestHookActionsAreASectionEachWithPrefixedPromptFields(t *testing.T) {
	t.Parallel()
	p := sampleUpgrade(operator)
	p.Actions = []HookActionSection{{
		Name: "back-up", Title: "Back up the database", Hook: "pre-upgrade", Description: "Dumps <em>everything</em>.",
		Prompts: []ParamGroup{{Fields: []ParamField{
			{Prefix: "prompt.back-up", Name: "label", Title: "Label", Type: "string", Value: "nightly", Error: "Label is too long"},
			{Prefix: "prompt.back-up", Name: "key", Title: "Key", Type: "secret"},
		}}},
	}}
	doc := renderDoc(t, DeploymentUpgradePage(p))
	section := doc.Find(`form [data-testid="hook-action"][data-action="back-up"]`)
	require.Equal(t, "Before upgrade: Back up the database", section.Find("h2").Text())
	require.Equal(t, "everything", section.Find("em").Text(), "the description is help text")
	label := section.Find("#prompt-back-up-label")
	require.Equal(t, "prompt.back-up.label", label.AttrOr("name", ""))
	require.Equal(t, "nightly", label.AttrOr("value", ""))
	require.Equal(t, "Label is too long", section.Find("#prompt-back-up-label-error").Text())
	require.Equal(t, "prompt.back-up.key", section.Find(`input[type="password"]`).AttrOr("name", ""))
	require.Contains(t, doc.Find(`[data-testid="error-summary"] a`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("href", "") }),
		"#prompt-back-up-label", "the summary links to a bad prompt")

	del := renderDoc(t, DeploymentDeletePage(DeploymentDeleteProps{Page: Page{User: operator}, Name: "cache", Namespace: "cache", Actions: p.Actions}))
	require.Equal(t, 1, del.Find(`form[data-testid="delete-form"] [data-testid="hook-action"] #prompt-back-up-label`).Length())
	require.Equal(t, "#prompt-back-up-label", del.Find(`[data-testid="error-summary"] a`).AttrOr("href", ""))
}
