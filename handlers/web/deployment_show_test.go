package handlers

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/views"
)

// fakeVersions is a catalogue of one driver version whose content (digest
// and spec) a test may change, as an edit of the database by hand would.
type fakeVersions struct {
	DriverCatalog
	refs     []catalog.VersionRef
	byDigest map[string]*drivers.Driver
	gets     int
}

func (f *fakeVersions) VersionRefs(_ context.Context, name string) ([]catalog.VersionRef, error) {
	if len(f.refs) == 0 {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no driver named %q.", name)
	}
	return f.refs, nil
}

func (f *fakeVersions) Get(_ context.Context, name, version string) (*catalog.Version, error) {
	f.gets++
	for _, r := range f.refs {
		if r.Version == version {
			return &catalog.Version{Driver: f.byDigest[r.Digest], Digest: r.Digest, HasIcon: true}, nil
		}
	}
	return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
}

// specOf is a decoded spec of the hello driver whose title is title.
func specOf(title string) *drivers.Driver {
	d := &drivers.Driver{Metadata: drivers.Metadata{Name: "hello"}}
	d.Spec.Version, d.Spec.Info.Title = "1.0.0", title
	return d
}

func TestDeployedDriverDecodesEachDigestOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dep := &deployment.Deployment{Driver: "hello", DriverVersion: "1.0.0"}
	first, second := specOf("Hello"), specOf("Hello again")
	cat := &fakeVersions{
		refs:     []catalog.VersionRef{{Version: "1.0.0", Digest: "sha256:a"}},
		byDigest: map[string]*drivers.Driver{"sha256:a": first, "sha256:b": second},
	}
	specs := newDriverSpecs(driverSpecCacheBytes)

	first.Spec.Actions = []drivers.Action{
		{Name: "vacuum", Title: "Vacuum", Description: "Reclaims **space**.", Hook: drivers.HookManual},
		{Name: "backup", Hook: drivers.HookPreUpgrade},
	}
	var forms []*views.ManualAction
	for range 3 {
		spec, err := deployedDriver(ctx, cat, specs, views.NewMarkdown(), dep)
		require.NoError(t, err)
		require.Same(t, first, spec.Driver)
		require.True(t, spec.HasIcon)
		require.Len(t, spec.ManualActions, 1, "the forms of the manual actions only")
		require.Contains(t, string(spec.ManualActions[0].Description), "<strong>space</strong>")
		forms = append(forms, &spec.ManualActions[0])
	}
	require.Same(t, forms[0], forms[2], "the actions' forms are rendered once too")
	require.Equal(t, 1, cat.gets, "the spec of a digest is read and decoded once")

	cat.refs = []catalog.VersionRef{{Version: "1.0.0", Digest: "sha256:b"}}
	spec, err := deployedDriver(ctx, cat, specs, views.NewMarkdown(), dep)
	require.NoError(t, err)
	require.Same(t, second, spec.Driver, "other content under the same version is other content")
	require.Equal(t, 2, cat.gets)

	cat.refs = []catalog.VersionRef{{Version: "2.0.0", Digest: "sha256:c"}}
	spec, err = deployedDriver(ctx, cat, specs, views.NewMarkdown(), dep)
	require.NoError(t, err)
	require.Nil(t, spec.Driver, "a version the catalogue lost has no spec, even one kept")

	cat.refs = nil
	spec, err = deployedDriver(ctx, cat, specs, views.NewMarkdown(), dep)
	require.NoError(t, err)
	require.Nil(t, spec.Driver, "nor has a driver the catalogue lost")
}

func TestDriverSpecsAreBoundedBySize(t *testing.T) {
	t.Parallel()
	// spec is a decoded spec whose one parameter has a default of n bytes,
	// held in an interface as decoded JSON holds it.
	spec := func(n int) driverSpec {
		d := specOf("Hello")
		d.Spec.Parameters = []drivers.Parameter{{Name: "motd", Type: drivers.TypeText, Default: strings.Repeat("x", n)}}
		return driverSpec{Driver: d}
	}
	small, large := textSize(reflect.ValueOf(spec(10))), textSize(reflect.ValueOf(spec(10_010)))
	require.Equal(t, 10_000, large-small, "a default's text counts")
	withMap := spec(10)
	withMap.Driver.Spec.Parameters[0].Default = map[string]any{"greeting": strings.Repeat("x", 10_000)}
	require.Greater(t, textSize(reflect.ValueOf(withMap)), large, "so does the text in a map")

	specs := newDriverSpecs(4 * large)
	for _, digest := range []string{"a", "b", "c", "d", "e"} {
		specs.add(digest, spec(10_010))
	}
	_, ok := specs.get("a")
	require.False(t, ok, "the least recently shown goes first")
	for _, digest := range []string{"b", "c", "d", "e"} {
		_, ok := specs.get(digest)
		require.True(t, ok, "%s is kept", digest)
	}
	require.LessOrEqual(t, specs.size, 4*large)
}

// TestDeploymentPageDecodesItsDriverVersionOnce: a deployment page reads its
// driver version's spec from the catalogue once, not per request, and keeps
// showing it after another version of the driver is imported.
func TestDeploymentPageDecodesItsDriverVersionOnce(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	d.install(t, pgInstall("orders"))
	cat := d.deps.Drivers.(*catalog.Catalog)
	counting := &countingCatalog{DriverCatalog: cat}
	d.deps.Drivers = counting
	d.e = New(d.deps)

	params := func() []string {
		rec := d.request(d.reader, http.MethodGet, "/deployments/orders", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		doc := parse(t, rec)
		require.NotContains(t, rec.Body.String(), pgSecret)
		return attrs(doc.Find(`[data-testid="param-value"]`), "data-name")
	}
	want := params()
	require.Contains(t, want, "database", "the parameters come from the driver's spec")
	require.Equal(t, want, params())
	require.EqualValues(t, 1, counting.gets.Load(), "the spec was read and decoded once")

	bundle, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "postgresql")
	require.NoError(t, err)
	bundle.Driver.Spec.Version = "1.0.1"
	_, err = cat.Import(context.Background(), bundle, "olga")
	require.NoError(t, err)
	require.Equal(t, want, params(), "another version changes nothing of this one")
	require.EqualValues(t, 1, counting.gets.Load())
}

// runWithSteps starts a task with steps steps, as its runner would, and ends
// it (and them) succeeded unless end is false.
func runWithSteps(t *testing.T, d deployApp, taskID int64, steps int, end bool) {
	t.Helper()
	ctx := context.Background()
	q := db.New(d.pool)
	_, err := q.StartTask(ctx, db.StartTaskParams{Runner: "test", ID: taskID})
	require.NoError(t, err)
	for i := range steps {
		st, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: taskID, Kind: "component", Title: "Scale step " + strconv.Itoa(i+1)})
		require.NoError(t, err)
		if end {
			require.NoError(t, q.EndStep(ctx, db.EndStepParams{ID: st.ID, Status: executor.StepSucceeded, Detail: []byte("{}")}))
		}
	}
	if end {
		n, err := q.FinishTask(ctx, db.FinishTaskParams{ID: taskID, Runner: "test", Status: executor.TaskSucceeded, Result: []byte("null")})
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	}
}

// TestOldEndedTasksFoldTheirSteps: the newest tasks and those still running
// show their steps; older ended ones show a link that opens them, in place
// with htmx and as a page of their own without it.
func TestOldEndedTasksFoldTheirSteps(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	ids := []int64{d.install(t, pgInstall("orders")).TaskID}
	for range 4 {
		q, err := d.svc.Stop(context.Background(), "orders", nil, "olga")
		require.NoError(t, err)
		ids = append(ids, q.TaskID)
	}
	for i, id := range ids {
		runWithSteps(t, d, id, 2, i != 1) // the second task still runs
	}
	queued, err := d.svc.Stop(context.Background(), "orders", nil, "olga")
	require.NoError(t, err)

	rec := d.request(d.reader, http.MethodGet, "/deployments/orders", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	tasks := parse(t, rec).Find(`[data-testid="task"]`)
	id := func(i int) string { return strconv.FormatInt(ids[i], 10) }
	require.Equal(t, []string{strconv.FormatInt(queued.TaskID, 10), id(4), id(3), id(2), id(1), id(0)}, attrs(tasks, "data-task-id"))
	steps := func(i int) int { return tasks.Eq(i).Find(`[data-testid="step"]`).Length() }
	links := func(i int) []string { return attrs(tasks.Eq(i).Find(`[data-testid="task-steps-link"]`), "href") }
	require.Zero(t, steps(0), "a queued task has no steps yet")
	require.Empty(t, links(0))
	for _, i := range []int{1, 2} {
		require.Equal(t, 2, steps(i), "a task among the newest shows its steps")
		require.Empty(t, links(i))
	}
	require.Equal(t, 2, steps(4), "a running task shows its steps")
	path := "/deployments/orders/tasks/" + id(2) + "/steps"
	page := "/deployments/orders/tasks/" + id(2)
	for _, i := range []int{3, 5} {
		require.Zero(t, steps(i), "an older ended task folds its steps")
		require.Equal(t, "Show 2 steps", text(tasks.Eq(i).Find(`[data-testid="task-steps-link"]`)))
	}
	require.Equal(t, []string{page}, links(3), "without JavaScript the link opens the task's page")
	require.Equal(t, path, tasks.Eq(3).Find(`[data-testid="task-steps-link"]`).AttrOr("hx-get", ""))
	require.NotContains(t, rec.Body.String(), pgSecret)

	rec = d.request(d.reader, http.MethodGet, path, nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	doc := parse(t, rec)
	require.Zero(t, doc.Find("nav.nav").Length(), "htmx gets the steps alone")
	require.Equal(t, []string{"Scale step 1", "Scale step 2"}, texts(doc.Find(`[data-testid="steps"] > [data-testid="step"] .step-title`)))
	require.Empty(t, rec.Header().Get("HX-Trigger"), "opening steps reloads nothing else")

	rec = d.request(d.reader, http.MethodGet, "/deployments/orders/tasks/"+id(0)+"/steps", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = parse(t, rec)
	require.Equal(t, "Install #"+id(0)+" of orders", text(doc.Find("h1")), "without htmx the task has a page")
	require.Equal(t, 2, doc.Find(`[data-testid="task"] [data-testid="step"]`).Length())
	require.NotContains(t, rec.Body.String(), pgSecret)

	for _, p := range []string{"/deployments/orders/tasks/999999/steps", "/deployments/orders/tasks/x/steps", "/deployments/nope/tasks/" + id(0) + "/steps"} {
		require.Equal(t, http.StatusNotFound, d.request(d.reader, http.MethodGet, p, nil).Code, p)
	}
}
