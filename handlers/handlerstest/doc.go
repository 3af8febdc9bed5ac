// Package handlerstest is the test harness of the server and its adapters,
// built on app/apptest (the app as app.New builds it): the app on a test
// database with ways to act as its users (Setup, App, Visitor), a running
// server with the bundled drivers (NewCatalogEnv) or on the local cluster
// (NewClusterEnv), the REST API's and the action primitives' callers, and
// the browser helpers (NewBrowser), and what catalogue sources read: a
// registry and an index site publishing signed hello-web versions (Registry,
// IndexSite, KeyPairs), which source's own tests use too. Browser and
// cluster tests skip under -short.
package handlerstest
