package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/source"
	"github.com/styrmin/styrmin/views"
)

// Sources is what the Sources page needs (source.Service).
type Sources interface {
	Add(ctx context.Context, ns source.NewSource, by string) (source.Source, error)
	List(ctx context.Context) ([]source.Source, error)
	Versions(ctx context.Context, name string) ([]source.Version, error)
	Delete(ctx context.Context, name string) error
	RequestSync(ctx context.Context, name string) error
	Update(ctx context.Context, name string, ch source.Change) (source.Source, error)
}

var _ Sources = (*source.Service)(nil)

// SourceList shows the catalogue sources with the versions each read, and
// to admins the form that adds one.
func SourceList(sources Sources) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderSources(c, sources, http.StatusOK, views.SourceForm{}, "")
	}
}

// sourcesPage is what the Sources page shows besides the sources: the add
// form (empty, or as typed with its errors), a refused edit of one source
// with its errors, and what a change just did.
type sourcesPage struct {
	form   views.SourceForm
	edit   views.SourceEdit
	notice string
}

// renderSources renders the Sources page with form (empty, or as typed with
// its errors) and notice (what a change just did; empty for none).
func renderSources(c echo.Context, sources Sources, status int, form views.SourceForm, notice string) error {
	return renderSourcesPage(c, sources, status, sourcesPage{form: form, notice: notice})
}

// renderSourcesPage renders the Sources page with what sp holds.
func renderSourcesPage(c echo.Context, sources Sources, status int, sp sourcesPage) error {
	ctx := c.Request().Context()
	list, err := sources.List(ctx)
	if err != nil {
		return err
	}
	rows := make([]views.SourceRow, 0, len(list))
	for _, s := range list {
		versions, err := sources.Versions(ctx, s.Name)
		if err != nil {
			return err
		}
		rows = append(rows, sourceRow(s, versions))
	}
	return render(c, status, views.SourcesPage(views.SourcesProps{
		Page: page(c, "Catalogue sources", views.NavDrivers), Sources: rows, Form: sp.form, Edit: sp.edit, Notice: sp.notice}))
}

// sourceRow is a source and its versions as the page shows them.
func sourceRow(s source.Source, versions []source.Version) views.SourceRow {
	row := views.SourceRow{Name: s.Name, Kind: s.Kind, URL: s.URL, SignedOnly: s.SignedOnly, CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt,
		SyncedAt: s.SyncedAt, SyncError: s.SyncError, NextSyncAt: s.NextSyncAt}
	for _, k := range s.Keys {
		row.Keys = append(row.Keys, k.Name)
	}
	for _, v := range versions {
		row.Versions = append(row.Versions, views.SourceVersionRow{Tag: v.Tag, Digest: v.Digest, Imported: v.Status == source.Imported,
			Reason: v.Reason, SignedBy: v.SignedBy, CheckedAt: v.CheckedAt})
	}
	return row
}

// sourceDone tells what a change of the sources did: on an htmx request
// the page swapped in says it; otherwise a flash on the page redirected to.
func sourceDone(c echo.Context, sources Sources, message string) error {
	if isHTMX(c) {
		return renderSources(c, sources, http.StatusOK, views.SourceForm{}, message)
	}
	flash(c, views.FlashSuccess, message)
	return redirect(c, "/sources")
}
