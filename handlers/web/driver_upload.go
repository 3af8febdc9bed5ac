package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// MaxUploadMiB is the largest bundle archive accepted, in MiB: the bundle
// size limit, since an archive compresses the files it holds.
const MaxUploadMiB = drivers.MaxBundleSize >> 20

// DriverUploadShow shows the bundle upload form.
func DriverUploadShow() echo.HandlerFunc {
	return func(c echo.Context) error {
		return render(c, http.StatusOK, views.DriverUploadPage(uploadProps(c)))
	}
}

// DriverUploadSubmit imports an uploaded bundle archive and opens its driver
// page; a refused bundle shows the form again with the reason and, for a
// bundle that breaks the contract, every problem with its line.
func DriverUploadSubmit(drivers DriverCatalog) echo.HandlerFunc {
	return func(c echo.Context) error {
		fh, err := c.FormFile("bundle")
		if err != nil {
			return uploadRefused(c, "", styrmin.Errorf(styrmin.EINVALID, "Choose a bundle archive (.tar.gz) to upload."))
		}
		if fh.Size > MaxUploadMiB<<20 {
			return uploadRefused(c, fh.Filename, styrmin.Errorf(styrmin.EINVALID, "The archive is larger than %d MiB.", MaxUploadMiB))
		}
		f, err := fh.Open()
		if err != nil {
			return fmt.Errorf("web: open upload: %w", err)
		}
		defer f.Close()
		res, err := drivers.ImportArchive(c.Request().Context(), f, catalog.ArchiveImport{By: httpx.CurrentUser(c).Username})
		if err != nil {
			return uploadRefused(c, fh.Filename, err)
		}
		if res.Created {
			flash(c, views.FlashSuccess, fmt.Sprintf("Imported %s version %s.", res.Name, res.Version))
		} else {
			flash(c, views.FlashInfo, fmt.Sprintf("%s version %s is already in the catalogue with the same content; nothing changed.", res.Name, res.Version))
		}
		return redirect(c, driverURL(res.Name, res.Version))
	}
}

// uploadRefused shows the form again with why the upload was refused; errors
// without a user-facing code go to the error handler.
func uploadRefused(c echo.Context, fileName string, err error) error {
	code := styrmin.ErrorCode(err)
	status, userFacing := httpx.StatusOf(code)
	if !userFacing || code == styrmin.EINTERNAL {
		return err
	}
	props := uploadProps(c)
	props.FileName = fileName
	props.Error = styrmin.ErrorMessage(err)
	var ps drivers.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			props.Problems = append(props.Problems, views.DriverProblem{
				File: p.File, Line: p.Line, Column: p.Column, Field: p.Field, Message: p.Message,
			})
		}
		status = http.StatusUnprocessableEntity
	}
	return render(c, status, views.DriverUploadPage(props))
}

// uploadProps are the upload page's props before any upload.
func uploadProps(c echo.Context) views.DriverUploadProps {
	return views.DriverUploadProps{Page: page(c, "Upload a driver", views.NavDrivers), MaxMiB: MaxUploadMiB}
}

// driverURL is the address of a driver version's page.
func driverURL(name, version string) string {
	return "/drivers/" + url.PathEscape(name) + "?version=" + url.QueryEscape(version)
}
