package handlers

import (
	"context"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/views"
)

// DriverCatalog is what the driver pages need from catalog.Catalog.
type DriverCatalog interface {
	List(ctx context.Context) ([]catalog.Entry, error)
	VersionRefs(ctx context.Context, name string) ([]catalog.VersionRef, error)
	Get(ctx context.Context, name, version string) (*catalog.Version, error)
	Icon(ctx context.Context, name, version string) (catalog.Icon, error)
	ImportArchive(ctx context.Context, r io.Reader, by string) (catalog.Imported, error)
}

var _ DriverCatalog = (*catalog.Catalog)(nil)

// gridTarget is the id of the catalogue grid that search and filter replace.
const gridTarget = "driver-grid"

// driverList shows the catalogue, filtered by the q and label query
// parameters. An htmx request aimed at the grid gets only the grid.
func driverList(drivers DriverCatalog) echo.HandlerFunc {
	return func(c echo.Context) error {
		entries, err := drivers.List(c.Request().Context())
		if err != nil {
			return err
		}
		query, label := c.QueryParam("q"), c.QueryParam("label")
		props := views.DriverListProps{
			Page:         page(c, "Drivers", views.NavDrivers),
			Query:        query,
			Label:        label,
			LabelOptions: viewLabels(catalog.Labels(entries)),
			Total:        len(entries),
		}
		for _, e := range catalog.Search(entries, query, label) {
			props.Cards = append(props.Cards, driverCard(e))
		}
		c.Response().Header().Add("Vary", "HX-Request, HX-Target")
		if isHTMX(c) && c.Request().Header.Get("HX-Target") == gridTarget {
			return render(c, http.StatusOK, views.DriverGrid(props))
		}
		return render(c, http.StatusOK, views.DriverListPage(props))
	}
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
