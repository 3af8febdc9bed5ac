package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/source"
	"github.com/styrmin/styrmin/views"
)

// SourceAdd adds the form's source (admins only: the permission table says
// so); a refused one shows the form again as typed, each error at its field.
func SourceAdd(sources Sources) echo.HandlerFunc {
	return func(c echo.Context) error {
		form, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		typed := views.SourceForm{Name: strings.TrimSpace(form.Get("name")), Kind: form.Get("kind"), URL: strings.TrimSpace(form.Get("url")),
			SignedOnly: form.Get("signed_only") == "true"}
		ns := source.NewSource{Name: typed.Name, Kind: typed.Kind, URL: typed.URL, SignedOnly: typed.SignedOnly}
		names, pems := form["key_name"], form["key_pem"]
		for i := range max(len(names), len(pems)) {
			k := views.SourceKeyField{Name: strings.TrimSpace(at(names, i)), PEM: strings.TrimSpace(at(pems, i))}
			if k.Name == "" && k.PEM == "" {
				continue // an empty slot
			}
			typed.Keys = append(typed.Keys, k)
			ns.Keys = append(ns.Keys, source.Key{Name: k.Name, PEM: k.PEM + "\n"})
		}
		_, err = sources.Add(c.Request().Context(), ns, httpx.CurrentUser(c).Username)
		if err == nil {
			return sourceDone(c, sources, "The source "+ns.Name+" is added: a worker reads its versions within 15 seconds.")
		}
		switch styrmin.ErrorCode(err) {
		case styrmin.EINVALID:
			typed.Error, typed.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
		case styrmin.ECONFLICT: // the name is taken
			typed.FieldErrors = map[string]string{"name": styrmin.ErrorMessage(err)}
		default:
			return err
		}
		return renderSources(c, sources, http.StatusUnprocessableEntity, typed, "")
	}
}

// at is list[i], or "" past its end.
func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return ""
}
