package audit_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
)

// TestTheDocsListEveryAction: docs/audit.md, which audit consumers filter
// by, names every action.
func TestTheDocsListEveryAction(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/audit.md")
	require.NoError(t, err)
	for _, action := range audit.Actions() {
		require.Contains(t, string(doc), "`"+action+"`", "docs/audit.md names %s", action)
	}
}
