package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// DriverCatalog is what the driver pages need from catalog.Catalog.
type DriverCatalog interface {
	Listing(ctx context.Context) (catalog.Listing, error)
	VersionRefs(ctx context.Context, name string) ([]catalog.VersionRef, error)
	Get(ctx context.Context, name, version string) (*catalog.Version, error)
	Spec(ctx context.Context, name, version string) (catalog.Spec, error)
	Icon(ctx context.Context, name, version string) (catalog.Icon, error)
	ImportArchive(ctx context.Context, r io.Reader, imp catalog.ArchiveImport) (catalog.Imported, error)
	Permissions(ctx context.Context, name, version string) (*catalog.Permissions, error)
	ApprovePermissions(ctx context.Context, name, version, by string, items *permissions.Set) (*catalog.Permissions, error)
	Refused() []catalog.Refusal
}

var _ DriverCatalog = (*catalog.Catalog)(nil)

// gridTarget is the id of the catalogue grid that search and filter replace.
const gridTarget = "driver-grid"

// DriverList shows the catalogue, filtered by the q and label query
// parameters: to a user whose own role is member, only the drivers some team
// of theirs may deploy (teams.Store.DriversOf). An htmx request aimed at the
// grid gets only the grid. The grid is the same for every user whose teams
// have the same driver rules, so it is rendered once per state of the
// catalogue, rules and filter, and kept in grids.
func DriverList(drivers DriverCatalog, grids *DriverGrids, teams *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		listing, err := drivers.Listing(ctx)
		if err != nil {
			return err
		}
		shown, err := teams.DriversOf(ctx, *httpx.CurrentUser(c))
		if err != nil {
			return err
		}
		query, label := c.QueryParam("q"), c.QueryParam("label")
		pageNumber, err := strconv.Atoi(c.QueryParam("page"))
		if err != nil || pageNumber < 1 {
			pageNumber = 1
		}
		key := gridKey{generation: listing.Generation, teams: shown.Key(), query: query, label: label, page: pageNumber}
		grid, ok := grids.Get(key)
		if !ok {
			if grid, err = renderGrid(ctx, listing.Entries, shown, query, label, pageNumber); err != nil {
				return err
			}
			grids.Add(key, grid)
		}
		c.Response().Header().Add("Vary", "HX-Request, HX-Target")
		if isHTMX(c) && c.Request().Header.Get("HX-Target") == gridTarget {
			return htmlBlob(c, http.StatusOK, grid.html)
		}
		pg := page(c, "Drivers", views.NavDrivers)
		var refused []views.RefusedFolder
		if pg.User.IsAdmin() {
			for _, r := range drivers.Refused() {
				refused = append(refused, views.RefusedFolder{Folder: r.Folder, Reason: r.Reason})
			}
		}
		return render(c, http.StatusOK, views.DriverListPage(views.DriverListProps{
			Page:         pg,
			Refused:      refused,
			Query:        query,
			Label:        label,
			LabelOptions: grid.labelOptions,
			Total:        grid.total,
			TeamsOnly:    !shown.Every(),
			Grid:         grid.component(),
		}))
	}
}

// DriversPerPage is how many drivers a page of the catalogue grid shows.
const DriversPerPage = 24

// renderGrid renders one page of the catalogue grid of the entries shown
// that match query and label; a page past the last shows the last.
func renderGrid(ctx context.Context, entries []catalog.Entry, shown teams.Drivers, query, label string, pageNumber int) (renderedGrid, error) {
	if !shown.Every() {
		entries = slices.DeleteFunc(slices.Clone(entries), func(e catalog.Entry) bool { return !shown.Allows(e.Name, e.Labels) })
	}
	matches := catalog.Search(entries, query, label)
	props := views.DriverListProps{Query: query, Label: label, Total: len(entries), Matches: len(matches), TeamsOnly: !shown.Every(),
		Pages: max(1, (len(matches)+DriversPerPage-1)/DriversPerPage)}
	props.PageNumber = min(pageNumber, props.Pages)
	start := (props.PageNumber - 1) * DriversPerPage
	for _, e := range matches[start:min(start+DriversPerPage, len(matches))] {
		props.Cards = append(props.Cards, driverCard(e))
	}
	var buf bytes.Buffer
	if err := views.DriverGrid(props).Render(ctx, &buf); err != nil {
		return renderedGrid{}, err
	}
	return renderedGrid{html: buf.Bytes(), labelOptions: viewLabels(catalog.Labels(entries)), total: len(entries)}, nil
}

// driverCard is a catalogue entry as the grid shows it.
func driverCard(e catalog.Entry) views.DriverCard {
	card := views.DriverCard{
		Name:     e.Name,
		Version:  e.Version,
		Title:    e.Title,
		Summary:  e.Summary,
		Labels:   viewLabels(catalog.Labels([]catalog.Entry{e})),
		Versions: e.Versions,
	}
	if e.HasIcon {
		card.IconURL = iconURL(e.Name, e.Version)
	}
	return card
}

// viewLabels converts catalogue labels for the views.
func viewLabels(labels []catalog.Label) []views.DriverLabel {
	out := make([]views.DriverLabel, len(labels))
	for i, l := range labels {
		out[i] = views.DriverLabel{Key: l.Key, Value: l.Value}
	}
	return out
}
