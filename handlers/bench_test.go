package handlers_test

import (
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/styrmin/styrmin/auth"
)

// Catalogue size of BenchmarkCatalogue1000: benchDrivers drivers with
// benchVersions versions each, besides the bundled drivers.
const (
	benchDrivers  = 100
	benchVersions = 10
)

// BenchmarkHealthz is the yardstick: the cheapest route, with no session.
func BenchmarkHealthz(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.ReadOnly)
	env.Fetch(b, "/healthz", handlerstest.BenchClients)
	b.ResetTimer()
	elapsed := env.Fetch(b, "/healthz", b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// BenchmarkCatalogue1000 shows the catalogue holding 1,000 driver versions
// (benchDrivers drivers of benchVersions versions each) and the bundled drivers.
func BenchmarkCatalogue1000(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.ReadOnly)
	handlerstest.ImportVersions(b, env.Catalog, benchDrivers, benchVersions)
	env.CompareWithHealthz(b, "/drivers")
}

// BenchmarkDriverPage shows the bundled PostgreSQL driver, the largest page.
func BenchmarkDriverPage(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.ReadOnly)
	env.CompareWithHealthz(b, "/drivers/postgresql")
}

// BenchmarkSignedInFloor shows the upload form, a small page that reads
// nothing but the session: what every signed-in page costs at least (the
// session cookie and the user's lookup in PostgreSQL), for comparison.
func BenchmarkSignedInFloor(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.Admin)
	env.CompareWithHealthz(b, "/drivers/upload")
}

// BenchmarkStaticScript serves the htmx script (52 KB) as a static file: no
// session, no rendering, nothing but bytes on the wire, for comparison with
// the pages of similar size.
func BenchmarkStaticScript(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.ReadOnly)
	env.CompareWithHealthz(b, "/static/js/htmx.min.js")
}
