package handlers

import "github.com/labstack/echo/v4"

// strictTransportSecurity is the HSTS header of responses served over TLS:
// browsers then use HTTPS only, for a year, on this host and its subdomains.
const strictTransportSecurity = "max-age=31536000; includeSubDomains"

// hsts sets Strict-Transport-Security on responses to requests that came over
// TLS, to this server or to a trusted proxy (X-Forwarded-Proto). Over plain
// HTTP the header would be ignored by browsers, and would pin a host that may
// have no certificate.
func hsts(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Scheme() == "https" {
			c.Response().Header().Set("Strict-Transport-Security", strictTransportSecurity)
		}
		return next(c)
	}
}
