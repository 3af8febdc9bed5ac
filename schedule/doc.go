// Package schedule runs the manual actions of deployments on a schedule: a
// cron expression in a time zone, the action's prompt values given once
// (secret ones sealed), an overlap policy (skip a slot while the deployment
// is busy, or queue behind) and a missed-run policy (after downtime, run
// once or skip). Service keeps the schedules; Runner, one per worker
// process, queues each due slot's run through deployment.Service as a task
// like the others, once per slot however many workers run.
package schedule
