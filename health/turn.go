package health

import "time"

// Turn is a change of a deployment's health that Styrmin announces.
type Turn string

// The turns: to Degraded from another known word, and back to Healthy after
// a Degraded episode (through other words or not).
const (
	TurnDegraded  Turn = "degraded"
	TurnRecovered Turn = "recovered"
)

// TurnOf is the turn of a deployment whose last known word was prev, in an
// open Degraded episode or not, that now reads word; "" when it takes none.
// Unknown (a cluster that could not be read) is no word: it takes none.
func TurnOf(prev Word, open bool, word Word) Turn {
	switch {
	case word == Degraded && prev != Degraded:
		return TurnDegraded
	case word == Healthy && open:
		return TurnRecovered
	}
	return ""
}

// Turned is a deployment's turn, as its health read it.
type Turned struct {
	Turn         Turn
	DeploymentID int64
	Deployment   string
	Driver       string
	// Assessment is the health read that made the turn, its reasons redacted.
	Assessment
	At time.Time
}
