package drivers_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
)

func TestGroupsPutsTheUngroupedFirstThenEachGroupInOrderOfAppearance(t *testing.T) {
	t.Parallel()
	params := []drivers.Parameter{
		{Name: "size", Group: "Storage"},
		{Name: "name"},
		{Name: "password", Group: "Access"},
		{Name: "class", Group: "Storage"},
		{Name: "replicas"},
	}
	var got [][]string
	for _, g := range drivers.Groups(params) {
		names := []string{g.Name}
		for _, p := range g.Parameters {
			names = append(names, p.Name)
		}
		got = append(got, names)
	}
	require.Equal(t, [][]string{{"", "name", "replicas"}, {"Storage", "size", "class"}, {"Access", "password"}}, got)
	require.Empty(t, drivers.Groups(nil))
	require.Equal(t, "Storage", drivers.Groups(params[:1])[0].Name, "no empty section when every parameter has a group")
}
