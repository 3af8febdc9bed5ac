package drift_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drift"
)

func TestObjectsSplitsListsAndSkipsEmptyDocuments(t *testing.T) {
	t.Parallel()
	objs, err := drift.Objects("---\n# only a comment\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: other}}\n- {apiVersion: v1, kind: Service, metadata: {name: b}}\n")
	require.NoError(t, err)
	require.Equal(t, []drift.Ref{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "other", Name: "a"}, {APIVersion: "v1", Kind: "Service", Name: "b"}},
		[]drift.Ref{objs[0].Ref, objs[1].Ref})
}

// A chart is third-party content: a hostile manifest is refused with a
// clear error, within bounded work.
func TestObjectsRefusesHostileManifests(t *testing.T) {
	t.Parallel()
	many := strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", drift.MaxObjects+1)
	deep := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: " + strings.Repeat("[", drift.MaxDepth+1) + strings.Repeat("]", drift.MaxDepth+1)
	bomb := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for c := 'b'; c <= 'j'; c++ {
		prev := string(c - 1)
		bomb += string(c) + ": &" + string(c) + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
	}
	tests := map[string]struct{ manifest, says string }{
		"too big":         {strings.Repeat("#", drift.MaxManifestBytes+1), "more than the"},
		"too many":        {many, "more than the 300 objects"},
		"too deep":        {deep, "deeper than"},
		"alias bomb":      {bomb, "cannot be read"},
		"not YAML":        {"apiVersion: v1\nkind: [", "cannot be read"},
		"not an object":   {"- a\n- b\n", "not an object"},
		"nameless object": {"apiVersion: v1\nkind: ConfigMap\n", "lacks its apiVersion, kind or metadata.name"},
		"bad list item":   {"apiVersion: v1\nkind: List\nitems: [1]\n", "is not an object"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := drift.Objects(tt.manifest)
			require.Error(t, err)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
			require.Contains(t, err.Error(), tt.says)
		})
	}
}

// A block scalar at the end of a document keeps its last newline, as the
// object Helm applied does: no drift where there is none.
func TestObjectsKeepsTheLastNewlineOfADocument(t *testing.T) {
	t.Parallel()
	objs, err := drift.Objects("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  page: |\n    hello\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	require.NoError(t, err)
	require.Len(t, objs, 2)
	require.Equal(t, "hello\n", objs[0].Fields["data"].(map[string]any)["page"])
}
