package handlers

import (
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
)

// malformedInput is the message of a request refused by checkInput.
const malformedInput = "The address or the form holds characters that are not valid UTF-8 text (or a NUL byte). Check the link or the values you typed."

// checkInput refuses, as invalid, a request whose decoded path, query keys
// and values or URL-encoded form fields are not valid UTF-8 or hold a NUL
// byte, before any handler (or PostgreSQL, which refuses both) sees them.
// Multipart forms are left to their handler: they carry binary files. It runs
// after the body limit, since it reads URL-encoded bodies.
func checkInput(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		// A query that does not parse keeps the pairs that do; those are what
		// handlers see, and what is checked.
		query, _ := url.ParseQuery(r.URL.RawQuery)
		if !validText(r.URL.Path) || !validValues(query) {
			return styrmin.Errorf(styrmin.EINVALID, malformedInput)
		}
		if strings.HasPrefix(r.Header.Get(echo.HeaderContentType), echo.MIMEApplicationForm) {
			// As for the query, pairs that do not parse are dropped; only a
			// body over the limit (an *echo.HTTPError) ends the request.
			var tooLarge *echo.HTTPError
			if err := r.ParseForm(); errors.As(err, &tooLarge) {
				return tooLarge
			}
			if !validValues(r.PostForm) {
				return styrmin.Errorf(styrmin.EINVALID, malformedInput)
			}
		}
		return next(c)
	}
}

// validValues reports whether every key and value is valid text.
func validValues(values url.Values) bool {
	for k, vs := range values {
		if !validText(k) {
			return false
		}
		for _, v := range vs {
			if !validText(v) {
				return false
			}
		}
	}
	return true
}

// validText reports whether s is valid UTF-8 without a NUL byte.
func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
