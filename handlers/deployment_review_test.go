package handlers

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/views"
)

// TestReviewPageNamesEachReleaseChange: the review page's changes are
// release's, converted by value (deployment_review.go), so each must keep
// its name.
func TestReviewPageNamesEachReleaseChange(t *testing.T) {
	t.Parallel()
	for from, want := range map[release.Change]views.Change{
		release.Added: views.ChangeAdded, release.Removed: views.ChangeRemoved,
		release.Changed: views.ChangeChanged, release.Unchanged: views.ChangeUnchanged,
	} {
		require.Equal(t, want, views.Change(from))
	}
}
