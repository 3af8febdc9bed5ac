package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
)

// Router finds the operation of api/openapi.yaml (as embedded in the
// generated code) that a request is for; its server base is Prefix.
func Router() (routers.Router, error) {
	doc, err := oapi.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("api: load the OpenAPI document: %w", err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != Prefix {
		return nil, fmt.Errorf("api: the OpenAPI document's server is not %s", Prefix)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("api: route the OpenAPI document: %w", err)
	}
	return router, nil
}

// RouteOf finds the operation of a request and its path parameters. A
// HEAD request is checked as the GET it stands for.
func RouteOf(router routers.Router, r *http.Request) (*routers.Route, map[string]string, error) {
	find := r.WithContext(r.Context()) // a shallow copy, whose URL and method change alone
	// Only the path counts: a request in absolute form must match the relative server URL too.
	find.URL = &url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	if find.Method == http.MethodHead {
		find.Method = http.MethodGet
	}
	return router.FindRoute(find)
}

// ValidateRequest refuses API requests that the OpenAPI document does not
// allow (an unknown enum value, a limit out of bounds, a malformed body...)
// with an EINVALID error naming the parameter or body field. It comes after
// requireToken, which authenticates: the document's security is not checked.
func ValidateRequest(router routers.Router) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			route, params, err := RouteOf(router, r)
			if err != nil {
				return fmt.Errorf("api: %s %s is not in the OpenAPI document: %w", r.Method, r.URL.Path, err)
			}
			err = openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
				Request: r, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true},
			})
			if err != nil {
				return requestProblem(err)
			}
			return next(c)
		}
	}
}

// requestProblem says in a sentence what is wrong with a request that the
// OpenAPI document refuses, as an EINVALID error with the field at fault;
// a body over the size limit is refused as too large.
func requestProblem(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is larger than this operation accepts (%d MiB).", tooLarge.Limit>>20))
	}
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return &styrmin.Error{Code: styrmin.EINVALID, Message: "The request does not match the API's description.", Err: err}
	}
	field, what := "body", "The request body"
	if p := re.Parameter; p != nil {
		field, what = p.Name, fmt.Sprintf("The %s parameter %s", p.In, p.Name)
	}
	reason := re.Reason
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		if ptr := se.JSONPointer(); len(ptr) > 0 {
			path := strings.Join(ptr, ".")
			if re.Parameter == nil {
				field, what = path, "The request body's "+path
			} else {
				what += " (" + path + ")"
			}
		}
		reason = se.Reason
		if reason == "" && se.Origin != nil {
			reason = se.Origin.Error()
		}
	} else if re.Err != nil && (reason == "" || re.Parameter != nil) {
		reason = re.Err.Error()
	}
	if reason == "" {
		reason = "is not valid"
	}
	return &styrmin.Error{Code: styrmin.EINVALID, Message: what + ": " + reason + ".", Fields: map[string]string{field: reason}, Err: err}
}
