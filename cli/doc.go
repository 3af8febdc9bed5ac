// Package cli is Styrmin's command-line client for people and pipelines:
// the login, deployments, deploy, upgrade, rollback, stop, start,
// reconcile, accept-drift, delete, run-action, tasks, drivers, sources, teams
// and whoami commands of the styrmin binary. It reaches a server only through its REST API (the
// generated api/client), with the URL and API token that login stored or that STYRMIN_URL and
// STYRMIN_TOKEN give; docs/cli.md describes every command and exit code.
package cli
