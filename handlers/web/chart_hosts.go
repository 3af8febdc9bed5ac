package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/views"
)

// ChartHostSettings keeps the hosts remote charts may come from although
// they resolve to addresses that are not public (catalog.Catalog).
type ChartHostSettings interface {
	ChartHosts(ctx context.Context) (release.ChartHosts, error)
	SetChartHosts(ctx context.Context, entries []string) (release.ChartHosts, error)
}

var _ ChartHostSettings = (*catalog.Catalog)(nil)

// SettingsShow shows the settings page with the allowed chart hosts.
func SettingsShow(settings ChartHostSettings) echo.HandlerFunc {
	return func(c echo.Context) error {
		hosts, err := settings.ChartHosts(c.Request().Context())
		if err != nil {
			return err
		}
		return renderSettings(c, http.StatusOK, views.ChartHostsForm{Hosts: strings.Join(hosts, "\n")})
	}
}

// ChartHostsSave replaces the allowed chart hosts with the lines of the
// form; an invalid line shows the form again with what is wrong.
func ChartHostsSave(settings ChartHostSettings) echo.HandlerFunc {
	return func(c echo.Context) error {
		text := c.FormValue("hosts")
		hosts, err := settings.SetChartHosts(c.Request().Context(), strings.Split(text, "\n"))
		if styrmin.ErrorCode(err) == styrmin.EINVALID {
			return renderSettings(c, http.StatusUnprocessableEntity, views.ChartHostsForm{Hosts: text, Error: styrmin.ErrorFields(err)["hosts"]})
		}
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, chartHostsSaved(hosts))
		return redirect(c, "/settings")
	}
}

// chartHostsSaved says what the saved chart hosts allow.
func chartHostsSaved(hosts release.ChartHosts) string {
	if len(hosts) == 0 {
		return "Chart hosts saved: remote charts come from public addresses only."
	}
	return fmt.Sprintf("Chart hosts saved: remote charts may also come from %s.", strings.Join(hosts, ", "))
}

// renderSettings renders the settings page with the chart hosts form.
func renderSettings(c echo.Context, status int, form views.ChartHostsForm) error {
	return render(c, status, views.SettingsPage(views.SettingsProps{Page: page(c, "Settings", views.NavSettings), ChartHosts: form}))
}
