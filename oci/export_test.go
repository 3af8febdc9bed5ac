package oci

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// CopyTag tags the manifest of tag from also as tag to, as anyone who may
// push to the repository can.
func CopyTag(t *testing.T, c Client, ref Ref, from, to string) {
	t.Helper()
	repo := c.repository(ref)
	desc, err := repo.Resolve(context.Background(), from)
	require.NoError(t, err)
	require.NoError(t, repo.Tag(context.Background(), desc, to))
}
