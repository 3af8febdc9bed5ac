package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/source"
	"github.com/styrmin/styrmin/views"
)

// SourceUpdate changes the source :name's policy and keys as its Edit form
// says (admins only: the permission table says so); a refused change shows
// the form again, open, each error at its field.
func SourceUpdate(sources Sources) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		form, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		signedOnly := form.Get("policy") == "signed-only"
		ch := source.Change{SignedOnly: &signedOnly, RemoveKeys: form["remove_key"]}
		typed := views.SourceKeyField{Name: strings.TrimSpace(form.Get("key_name")), PEM: strings.TrimSpace(form.Get("key_pem"))}
		if typed.Name != "" || typed.PEM != "" {
			ch.AddKeys = []source.Key{{Name: typed.Name, PEM: typed.PEM + "\n"}}
		}
		_, err = sources.Update(c.Request().Context(), name, ch)
		if err == nil {
			return sourceDone(c, sources, "The source "+name+" is changed: new versions are checked under its policy and keys; the versions it read stay as they are.")
		}
		if styrmin.ErrorCode(err) != styrmin.EINVALID {
			return err
		}
		edit := views.SourceEdit{Name: name, SignedOnly: signedOnly, Key: typed, Removed: ch.RemoveKeys,
			Error: styrmin.ErrorMessage(err), FieldErrors: styrmin.ErrorFields(err)}
		return renderSourcesPage(c, sources, http.StatusUnprocessableEntity, sourcesPage{edit: edit})
	}
}
