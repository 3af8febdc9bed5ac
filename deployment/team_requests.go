package deployment

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/requests"
	"github.com/styrmin/styrmin/teams/policytext"
)

// Requests is what a deployment's pods request against its team's CPU and
// memory quotas, as a review shows it.
type Requests struct {
	// Team is the deployment's team.
	Team string
	// Before is what the deployment requested as last planned; nil when
	// that was not recorded (a deployment planned before Styrmin counted).
	Before *requests.Totals
	// After is what the deployment requests once the operation is done.
	After requests.Totals
	// Others is what the team's other live deployments request.
	Others requests.Totals
	// MaxCPUMillis and MaxMemoryBytes are the team's quotas; nil: none.
	MaxCPUMillis, MaxMemoryBytes *int64
}

// hasQuota reports whether a team has a CPU or a memory quota.
func hasQuota(team db.Team) bool {
	return team.MaxCpuMillis != nil || team.MaxMemoryBytes != nil
}

// countRequests sums what manifest (renderErr: why the chart did not render
// offline) makes pods request, for a deployment of team. Nil when it cannot
// be counted and the team has no CPU or memory quota (nothing is recorded
// then); an InvalidError naming FieldParameters when the team has one: what
// cannot be counted cannot be allowed.
func countRequests(team db.Team, manifest string, renderErr error) (*requests.Totals, error) {
	var totals requests.Totals
	err := renderErr
	if err == nil {
		totals, err = requests.Sum(manifest)
	}
	switch {
	case err == nil:
		return &totals, nil
	case !hasQuota(team):
		return nil, nil //nolint:nilnil // nothing to record, nothing to enforce
	}
	var errs fieldErrors
	errs.add(Field{Kind: FieldParameters}, fmt.Sprintf("the team %s has a CPU or memory quota, and what this deployment's pods request cannot be counted: %s",
		team.Name, strings.TrimSuffix(styrmin.ErrorMessage(err), ".")))
	return nil, errs.err()
}

// teamRequests reads what the team's live deployments but except request.
func teamRequests(ctx context.Context, q *db.Queries, team db.Team, except int64) (requests.Totals, error) {
	row, err := q.SumLiveTeamRequests(ctx, db.SumLiveTeamRequestsParams{TeamID: team.ID, ExceptID: except})
	if err != nil {
		return requests.Totals{}, fmt.Errorf("deployment: read what team %s requests: %w", team.Name, err)
	}
	return requests.Totals{CPUMillis: row.CpuMillis, MemoryBytes: row.MemoryBytes}, nil
}

// checkRequests refuses, as an InvalidError naming FieldParameters, a
// deployment of team that would request after beside what its other live
// deployments (others) request past one of the team's quotas; a figure that
// does not grow (after ≤ before) is never refused, so a team above a quota
// lowered since may still shrink its deployments.
func checkRequests(team db.Team, others, after requests.Totals, before *requests.Totals) error {
	var was requests.Totals
	if before != nil {
		was = *before
	}
	var why []string
	if limit := team.MaxCpuMillis; limit != nil && after.CPUMillis > was.CPUMillis && others.Add(after).CPUMillis > *limit {
		why = append(why, fmt.Sprintf("the team %s may request %s CPU in all; its other live deployments request %s and this one %s",
			team.Name, cores(*limit), cores(others.CPUMillis), cores(after.CPUMillis)))
	}
	if limit := team.MaxMemoryBytes; limit != nil && after.MemoryBytes > was.MemoryBytes && others.Add(after).MemoryBytes > *limit {
		why = append(why, fmt.Sprintf("the team %s may request %s of memory in all; its other live deployments request %s and this one %s",
			team.Name, policytext.MemoryString(*limit), policytext.MemoryString(others.MemoryBytes), policytext.MemoryString(after.MemoryBytes)))
	}
	if len(why) == 0 {
		return nil
	}
	var errs fieldErrors
	errs.add(Field{Kind: FieldParameters}, strings.Join(why, "; ")+"; lower this deployment's replicas or resources, or ask an admin to raise the team's quota")
	return errs.err()
}

// cores writes millicores as CPUs (1.5, 0.25, 2).
func cores(millis int64) string {
	return strconv.FormatFloat(float64(millis)/1000, 'f', -1, 64)
}

// lockedRequests checks, under the team's row lock (LockTeam, held until the
// transaction ends, as checkQuota takes it), that the deployment id (0: a new
// one) may request after, then records it on the deployment. Two plans of
// one team take their turn: the second counts the first.
func lockedRequests(ctx context.Context, q *db.Queries, team db.Team, id int64, after *requests.Totals, before *requests.Totals) error {
	if after == nil {
		return nil
	}
	if hasQuota(team) {
		others, err := teamRequests(ctx, q, team, id)
		if err != nil {
			return err
		}
		if err := checkRequests(team, others, *after, before); err != nil {
			return err
		}
	}
	if id == 0 {
		return nil
	}
	return q.SetDeploymentRequests(ctx, db.SetDeploymentRequestsParams{ID: id, CpuMillis: after.CPUMillis, MemoryBytes: after.MemoryBytes})
}

// recorded is what a deployment's row says it requests; nil when not recorded.
func recorded(row db.Deployment) *requests.Totals {
	if row.RequestedCpuMillis == nil || row.RequestedMemoryBytes == nil {
		return nil
	}
	return &requests.Totals{CPUMillis: *row.RequestedCpuMillis, MemoryBytes: *row.RequestedMemoryBytes}
}
