package web_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/handlers/web"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

func TestDriverListShowsEveryBundledDriver(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	client := env.SignedIn(t, auth.ReadOnly)

	_, doc := env.Get(t, client, "/drivers", http.StatusOK)
	cards := doc.Find(`[data-testid="driver-card"]`)
	require.Equal(t, len(bundled.Names()), cards.Length())
	for _, name := range bundled.Names() {
		b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), name)
		require.NoError(t, err)
		card := doc.Find(fmt.Sprintf(`[data-testid="driver-card"][data-driver=%q]`, b.Driver.Metadata.Name))
		require.Equal(t, 1, card.Length(), "card of %s", name)
		require.Equal(t, b.Driver.Title(), strings.TrimSpace(card.Find(`[data-testid="driver-title"]`).Text()))
		require.Equal(t, "v"+b.Driver.Spec.Version, strings.TrimSpace(card.Find(`[data-testid="driver-version"]`).Text()))
		require.Equal(t, b.Driver.Summary(), strings.TrimSpace(card.Find(`[data-testid="driver-summary"]`).Text()))
		require.Len(t, handlerstest.Texts(card.Find(`[data-testid="driver-label"]`)), len(b.Driver.Metadata.Labels))
		if b.Icon != nil {
			src, _ := card.Find(`img[data-testid="driver-icon"]`).Attr("src")
			require.Equal(t, "/drivers/"+b.Driver.Metadata.Name+"/"+b.Driver.Spec.Version+"/icon", src)
		} else {
			require.Equal(t, 1, card.Find(`[data-testid="driver-icon-placeholder"]`).Length())
		}
	}
	require.Zero(t, doc.Find(`[data-testid="upload-link"]`).Length(), "read-only users get no upload link")

	admin := env.SignedIn(t, auth.Admin)
	_, doc = env.Get(t, admin, "/drivers", http.StatusOK)
	require.Equal(t, 1, doc.Find(`[data-testid="upload-link"]`).Length())
}

func TestDriverListSearchAndLabelFilter(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	handlerstest.ImportSample(t, env, "1.0.0", "", "")
	client := env.SignedIn(t, auth.ReadOnly)
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{name: "everything", query: "", want: []string{"hello-web", "postgresql", "redis", "sample"}},
		{name: "search by title", query: "?q=sample", want: []string{"sample"}},
		{name: "search is case-insensitive", query: "?q=SAMPLE+driver", want: []string{"sample"}},
		{name: "label filter", query: "?label=category%3Dtest", want: []string{"sample"}},
		{name: "search and filter together", query: "?q=sample&label=category%3Ddatabase", want: []string{}},
		{name: "nothing matches", query: "?q=no-such-driver", want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, doc := env.Get(t, client, "/drivers"+tt.query, http.StatusOK)
			got := []string{}
			doc.Find(`[data-testid="driver-card"]`).Each(func(_ int, s *goquery.Selection) {
				got = append(got, s.AttrOr("data-driver", ""))
			})
			require.ElementsMatch(t, tt.want, got)
			if len(tt.want) == 0 {
				require.Equal(t, 1, doc.Find(`[data-testid="driver-empty"]`).Length())
			}
		})
	}
}

func TestDriverListShowsItsDriversPageByPage(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	handlerstest.ImportVersions(t, env.Catalog, web.DriversPerPage+6, 1) // with the 3 bundled drivers: 33
	client := env.SignedIn(t, auth.ReadOnly)
	cards := func(doc *goquery.Document) int { return doc.Find(`[data-testid="driver-card"]`).Length() }

	_, first := env.Get(t, client, "/drivers", http.StatusOK)
	require.Equal(t, web.DriversPerPage, cards(first))
	require.Equal(t, "/drivers?page=2", first.Find(`[data-testid="driver-page-next"]`).AttrOr("href", ""))
	_, second := env.Get(t, client, "/drivers?page=2", http.StatusOK)
	require.Equal(t, 9, cards(second))
	require.Zero(t, second.Find(`[data-testid="driver-page-next"]`).Length(), "the last page has no Next")
	_, past := env.Get(t, client, "/drivers?page=99", http.StatusOK)
	require.Equal(t, 9, cards(past), "a page past the end shows the last")
	_, filtered := env.Get(t, client, "/drivers?q=bench-001", http.StatusOK)
	require.Equal(t, 1, cards(filtered))
	require.Zero(t, filtered.Find(`[data-testid="driver-pager"]`).Length())
}

func TestDriverListAnswersHtmxWithTheGridOnly(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	client := env.SignedIn(t, auth.ReadOnly)

	req, err := http.NewRequest(http.MethodGet, env.URL+"/drivers?q=redis", nil)
	require.NoError(t, err)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "driver-grid")
	res, doc := env.Do(t, client, req, http.StatusOK)
	require.Zero(t, doc.Find("header.topbar").Length(), "no layout around the fragment")
	require.Equal(t, 1, doc.Find(`#driver-grid`).Length())
	require.Equal(t, []string{"Redis"}, handlerstest.Texts(doc.Find(`[data-testid="driver-title"]`)))
	require.Contains(t, res.Header.Values("Vary"), "HX-Request, HX-Target")

	req.Header.Set("HX-History-Restore-Request", "true")
	req.Header.Del("HX-Target")
	_, doc = env.Do(t, client, req, http.StatusOK)
	require.Equal(t, 1, doc.Find("header.topbar").Length(), "history restore gets the whole page")
}

func TestDriverShowShowsWhatTheFileDeclares(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	client := env.SignedIn(t, auth.ReadOnly)
	for _, name := range bundled.Names() {
		b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), name)
		require.NoError(t, err)
		spec := b.Driver.Spec
		_, doc := env.Get(t, client, "/drivers/"+b.Driver.Metadata.Name, http.StatusOK)

		require.Equal(t, b.Driver.Title(), strings.TrimSpace(doc.Find(`[data-testid="driver-page-title"]`).Text()))
		require.Equal(t, spec.Version, strings.TrimSpace(doc.Find(`[data-testid="driver-page-version"]`).Text()))
		require.Equal(t, spec.SupportedVersions, doc.Find(`[data-testid="driver-supported-versions"]`).Text())
		require.Equal(t, spec.Info.License, doc.Find(`[data-testid="driver-license"]`).Text())
		require.Equal(t, len(spec.Info.Links), doc.Find(`[data-testid="driver-links"] a`).Length())

		params := doc.Find(`[data-testid="parameter"]`)
		require.Equal(t, len(spec.Parameters), params.Length(), "%s: every parameter", name)
		for _, p := range spec.Parameters {
			row := doc.Find(fmt.Sprintf(`[data-testid="parameter"][data-name=%q]`, p.Name))
			require.Equal(t, string(p.Type), row.Find(`[data-testid="parameter-type"]`).Text())
			if p.Type == drivers.TypeSecret {
				require.Equal(t, "never shown", strings.TrimSpace(row.Find(`[data-testid="parameter-default"]`).Text()))
			}
		}
		require.Equal(t, len(spec.Components), doc.Find(`[data-testid="component"]`).Length())
		require.Equal(t, len(spec.Services), doc.Find(`[data-testid="service"]`).Length())
		actions := doc.Find(`[data-testid="action"]`)
		require.Equal(t, len(spec.Actions), actions.Length())
		for _, a := range spec.Actions {
			sel := doc.Find(fmt.Sprintf(`[data-testid="action"][data-name=%q]`, a.Name))
			require.Equal(t, string(a.Hook), sel.Find(`[data-testid="action-hook"]`).Text())
			require.Equal(t, string(a.EffectiveMode()), sel.Find(`[data-testid="action-mode"]`).Text())
			require.Equal(t, a.Function, sel.Find(`[data-testid="action-function"]`).Text())
			require.Equal(t, len(a.Prompts), sel.Find(`[data-testid="prompt"]`).Length())
		}
	}
}

func TestDriverShowParameterDetails(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	client := env.SignedIn(t, auth.ReadOnly)
	_, doc := env.Get(t, client, "/drivers/postgresql", http.StatusOK)

	row := func(name string) *goquery.Selection {
		return doc.Find(fmt.Sprintf(`[data-testid="parameter"][data-name=%q]`, name))
	}
	require.Equal(t, "app", handlerstest.Text(row("database").Find(`[data-testid="parameter-default"]`)))
	require.Contains(t, handlerstest.Text(row("database").Find(`[data-testid="parameter-constraints"]`)), "at most 63 characters")
	require.Contains(t, handlerstest.Text(row("database").Find(`[data-testid="parameter-constraints"]`)), "matches ^[a-z][a-z0-9_]*$")
	require.Contains(t, handlerstest.Text(row("database")), "required")
	require.Contains(t, handlerstest.Text(row("database")), "immutable")
	require.Contains(t, handlerstest.Text(row("storage_gib").Find(`[data-testid="parameter-constraints"]`)), "from 1 to 1024")
	require.Contains(t, handlerstest.Text(row("log_statement").Find(`[data-testid="parameter-constraints"]`)), "one of: none, ddl, mod, all")
	require.Equal(t, "never shown", handlerstest.Text(row("password").Find(`[data-testid="parameter-default"]`)))
	require.Equal(t, []string{"Database", "Storage", "Tuning", "Logging"}, handlerstest.Texts(doc.Find(`[data-testid="driver-parameters"] .group-title`)))
}

func TestDriverShowVersionPicker(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	handlerstest.ImportSample(t, env, "1.2.0", "", "first")
	handlerstest.ImportSample(t, env, "1.10.0", "", "second")
	client := env.SignedIn(t, auth.ReadOnly)

	_, doc := env.Get(t, client, "/drivers/sample", http.StatusOK)
	require.Equal(t, "1.10.0", strings.TrimSpace(doc.Find(`[data-testid="driver-page-version"]`).Text()), "newest by semver")
	require.Equal(t, []string{"1.10.0 (newest)", "1.2.0"}, handlerstest.Texts(doc.Find(`#driver-version option`)))
	require.Equal(t, "1.10.0", doc.Find(`#driver-version option[selected]`).AttrOr("value", ""))

	_, doc = env.Get(t, client, "/drivers/sample?version=1.2.0", http.StatusOK)
	require.Equal(t, "1.2.0", strings.TrimSpace(doc.Find(`[data-testid="driver-page-version"]`).Text()))
	require.Contains(t, doc.Find(`[data-testid="driver-readme"]`).Text(), "first")

	env.Get(t, client, "/drivers/sample?version=9.9.9", http.StatusNotFound)
	env.Get(t, client, "/drivers/no-such-driver", http.StatusNotFound)
}

func TestDriverShowSanitisesMarkdown(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	handlerstest.ImportSample(t, env, "1.0.0", "", "# Sample\n\n<script>alert('readme')</script>\n\n[evil](javascript:alert(1)) ![x](https://tracker.example.com/p.png)")
	client := env.SignedIn(t, auth.ReadOnly)

	_, doc := env.Get(t, client, "/drivers/sample", http.StatusOK)
	readme, err := doc.Find(`[data-testid="driver-readme"]`).Html()
	require.NoError(t, err)
	require.Contains(t, readme, "<h1>Sample</h1>")
	desc, err := doc.Find(`[data-testid="driver-description"]`).Html()
	require.NoError(t, err)
	require.Contains(t, desc, "<strong>driver</strong>")
	for _, html := range []string{readme, desc} {
		require.NotContains(t, html, "<script")
		require.NotContains(t, html, "javascript:")
		require.NotContains(t, html, "tracker.example.com")
	}
}

func TestDriverRemoteIconIsNotHotLinked(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	handlerstest.ImportSample(t, env, "1.0.0", "https://icons.example.com/sample.svg", "")
	client := env.SignedIn(t, auth.ReadOnly)

	for _, path := range []string{"/drivers?q=sample", "/drivers/sample"} {
		_, doc := env.Get(t, client, path, http.StatusOK)
		html, err := doc.Html()
		require.NoError(t, err)
		require.NotContains(t, html, "icons.example.com", "%s does not load the remote icon", path)
		require.Equal(t, "S", strings.TrimSpace(doc.Find(`[data-testid="driver-icon-placeholder"]`).First().Text()))
	}
	env.Get(t, client, "/drivers/sample/1.0.0/icon", http.StatusNotFound)
}

func TestDriverIconIsServedInert(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	client := env.SignedIn(t, auth.ReadOnly)
	for _, name := range bundled.Names() {
		b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), name)
		require.NoError(t, err)
		if b.Icon == nil {
			continue
		}
		res, err := client.Get(env.URL + "/drivers/" + b.Driver.Metadata.Name + "/" + b.Driver.Spec.Version + "/icon")
		require.NoError(t, err)
		var body bytes.Buffer
		_, err = body.ReadFrom(res.Body)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, b.Icon.ContentType, res.Header.Get("Content-Type"))
		require.Equal(t, "default-src 'none'; style-src 'unsafe-inline'; sandbox", res.Header.Get("Content-Security-Policy"))
		require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
		require.Equal(t, b.Icon.Data, body.Bytes())
	}
	env.Get(t, client, "/drivers/postgresql/0.0.1/icon", http.StatusNotFound)
}

// upload posts an archive to the upload form as client and returns the response and page.
func upload(t *testing.T, env *handlerstest.CatalogEnv, client *http.Client, fileName string, archive []byte, status int) (*http.Response, *goquery.Document) {
	t.Helper()
	_, form := env.Get(t, client, "/drivers/upload", http.StatusOK)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("_csrf", handlerstest.CSRFToken(t, form)))
	fw, err := mw.CreateFormFile("bundle", fileName)
	require.NoError(t, err)
	_, err = fw.Write(archive)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, env.URL+"/drivers/upload", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return env.Do(t, client, req, status)
}

func TestDriverUpload(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	admin := env.SignedIn(t, auth.Admin)
	archive, err := catalog.Pack(handlerstest.SampleFiles("2.0.0", "", "uploaded"))
	require.NoError(t, err)

	res, _ := upload(t, env, admin, "sample.tar.gz", archive, http.StatusSeeOther)
	require.Equal(t, "/drivers/sample?version=2.0.0", res.Header.Get("Location"))
	_, doc := env.Get(t, admin, "/drivers/sample?version=2.0.0", http.StatusOK)
	require.Contains(t, handlerstest.Texts(doc.Find(`[data-testid="flash-success"]`)), "Imported sample version 2.0.0.")

	res, _ = upload(t, env, admin, "sample.tar.gz", archive, http.StatusSeeOther)
	_, doc = env.Get(t, admin, res.Header.Get("Location"), http.StatusOK)
	require.Contains(t, handlerstest.Texts(doc.Find(`[data-testid="flash-info"]`))[0], "already in the catalogue with the same content")

	changed, err := catalog.Pack(handlerstest.SampleFiles("2.0.0", "", "changed"))
	require.NoError(t, err)
	_, doc = upload(t, env, admin, "sample.tar.gz", changed, http.StatusConflict)
	require.Contains(t, doc.Find(`[data-testid="upload-error"]`).Text(), "Driver sample version 2.0.0 is already in the catalogue with different content")
}

func TestDriverUploadShowsProblemsWithLines(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	admin := env.SignedIn(t, auth.Admin)
	files := handlerstest.SampleFiles("not-semver", "", "")
	files["driver.styrmin.yml"] = bytes.Replace(files["driver.styrmin.yml"], []byte("kind: Driver"), []byte("kind: Driver\nbogus: 1"), 1)
	archive, err := catalog.Pack(files)
	require.NoError(t, err)

	_, doc := upload(t, env, admin, "broken.tar.gz", archive, http.StatusUnprocessableEntity)
	require.Contains(t, doc.Find(`[data-testid="upload-error"] .form-error`).Text(), "broken.tar.gz")
	problems := handlerstest.Texts(doc.Find(`[data-testid="upload-problem"]`))
	require.GreaterOrEqual(t, len(problems), 2, "every problem is listed: %v", problems)
	joined := strings.Join(problems, "\n")
	require.Contains(t, joined, "driver.styrmin.yml:3:1", "the unknown field is located")
	require.Contains(t, joined, "spec.version")

	_, doc = upload(t, env, admin, "junk.tar.gz", []byte("not an archive"), http.StatusBadRequest)
	require.Contains(t, doc.Find(`[data-testid="upload-error"]`).Text(), "not gzip-compressed")

	entries, err := env.Catalog.List(context.Background())
	require.NoError(t, err)
	require.Len(t, entries, len(bundled.Names()), "nothing was imported")
}

func TestDriverUploadRefusesAnOversizedBodyBeforeReadingIt(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	admin := env.SignedIn(t, auth.Admin)
	huge := bytes.Repeat([]byte{0}, 17<<20) // the upload page promises at most 16 MiB

	_, doc := upload(t, env, admin, "huge.tar.gz", huge, http.StatusRequestEntityTooLarge)
	require.Contains(t, doc.Find("h1").Text(), "Upload too large")
}

func TestDriverUploadNeedsAdmin(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	for _, role := range []auth.Role{auth.ReadOnly, auth.Operator} {
		client := env.SignedIn(t, role)
		env.Get(t, client, "/drivers/upload", http.StatusForbidden)
	}
}

// TestDriverListKeepsTheGridNotTheUsersParts: the grid is rendered once and
// shared, the header around it is each user's own, and an import by another
// server shows up.
func TestDriverListKeepsTheGridNotTheUsersParts(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	admin, reader := env.SignedIn(t, auth.Admin), env.SignedIn(t, auth.ReadOnly)
	cards := func(doc *goquery.Document) []string {
		return handlerstest.Texts(doc.Find(`[data-testid="driver-title"]`))
	}

	_, adminDoc := env.Get(t, admin, "/drivers", http.StatusOK)
	_, readerDoc := env.Get(t, reader, "/drivers", http.StatusOK)
	require.Equal(t, cards(adminDoc), cards(readerDoc))
	require.Equal(t, 1, adminDoc.Find(`[data-testid="upload-link"]`).Length(), "admins may upload")
	require.Zero(t, readerDoc.Find(`[data-testid="upload-link"]`).Length())
	require.Equal(t, "admin-user", adminDoc.Find(`[data-testid="current-user"]`).Text())
	require.Equal(t, "readonly-user", readerDoc.Find(`[data-testid="current-user"]`).Text())
	require.NotEqual(t, handlerstest.CSRFToken(t, adminDoc), handlerstest.CSRFToken(t, readerDoc))

	fsys := fstest.MapFS{}
	for name, data := range handlerstest.SampleFiles("1.0.0", "", "") {
		fsys["sample/"+name] = &fstest.MapFile{Data: data}
	}
	_, err := catalog.New(env.Pool, release.ChartFetcher{}).ImportFS(context.Background(), fsys, "sample", "elsewhere")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, doc := env.Get(t, reader, "/drivers", http.StatusOK)
		return slices.Contains(cards(doc), "Sample")
	}, 5*time.Second, 10*time.Millisecond, "another server's import shows")
	_, doc := env.Get(t, reader, "/drivers/sample", http.StatusOK)
	require.Equal(t, "Sample", doc.Find(`[data-testid="driver-page-title"]`).Text())
}

// TestDriverListShowsAdminsTheRefusedDriverFolders: a folder of
// STYRMIN_DRIVERS_DIR that the server did not import is on the catalogue
// page with why, for admins only (its path is the server's).
func TestDriverListShowsAdminsTheRefusedDriverFolders(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "half-done"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "half-done", "driver.styrmin.yml"), []byte("apiVersion: styrmin.io/v1\nkind: Driver\n"), 0o644))
	_, err := env.App.Catalog.ImportDir(t.Context(), dir, catalog.RefuseChanges)
	require.NoError(t, err)

	_, doc := env.Get(t, env.SignedIn(t, auth.ReadOnly), "/drivers", http.StatusOK)
	require.Zero(t, doc.Find(`[data-testid="refused-folders"]`).Length())

	_, doc = env.Get(t, env.SignedIn(t, auth.Admin), "/drivers", http.StatusOK)
	refused := doc.Find(`[data-testid="refused-folder"]`)
	require.Equal(t, 1, refused.Length())
	require.Contains(t, refused.Find("code").Text(), filepath.Join(dir, "half-done"))
	require.Contains(t, refused.Find("pre").Text(), "metadata")
}

// TestDriverPageMarksADevelopmentBuild: a folder changed under its version
// and imported as a development build is marked as one on its page and in
// the version picker; the released version is not.
func TestDriverPageMarksADevelopmentBuild(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	dir := t.TempDir()
	folder := filepath.Join(dir, "tiny")
	require.NoError(t, os.MkdirAll(filepath.Join(folder, "chart"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "chart", "Chart.yaml"), []byte("apiVersion: v2\nname: tiny\nversion: 1.0.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "driver.styrmin.yml"), []byte("apiVersion: styrmin.io/v1\nkind: Driver\nmetadata:\n  name: tiny\nspec:\n  version: 0.1.0\n  supported_versions: \">=1.0.0\"\n  helm:\n    main:\n      location: ./chart\n      version: 1.0.0\n"), 0o644))
	for _, readme := range []string{"", "edited"} {
		require.NoError(t, os.WriteFile(filepath.Join(folder, "README.md"), []byte(readme), 0o644))
		_, err := env.App.Catalog.ImportDir(t.Context(), dir, catalog.ImportDevBuilds)
		require.NoError(t, err)
	}
	reader := env.SignedIn(t, auth.ReadOnly)

	_, doc := env.Get(t, reader, "/drivers/tiny", http.StatusOK)
	require.Equal(t, "0.1.0+dev.1", doc.Find(`[data-testid="driver-page-version"]`).Text())
	require.Contains(t, doc.Find(`[data-testid="dev-build"]`).Text(), "development build of version 0.1.0")
	options := doc.Find(`[data-testid="version-picker"] option`)
	require.Equal(t, 2, options.Length())
	require.Regexp(t, `^\s*0\.1\.0\+dev\.1\s+\(development build\)\s+\(newest\)\s*$`, options.First().Text())

	_, doc = env.Get(t, reader, "/drivers/tiny?version=0.1.0", http.StatusOK)
	require.Zero(t, doc.Find(`[data-testid="dev-build"]`).Length())
}
