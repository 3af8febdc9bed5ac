package db

import "math"

// PageBefore is the before id of a list query's page before the row with
// id, 0 for the newest page: then the largest id, so that no query needs an
// "OR before = 0", which a generic plan cannot take as the index's bound
// and would read every newer row for.
func PageBefore(id int64) int64 {
	if id == 0 {
		return math.MaxInt64
	}
	return id
}
