package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
)

func TestUpdateForOffersTheNewestReleaseNewerThanTheDeployedVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		all      []string
		deployed string
		want     string
	}{
		{"the newest of several newer", []string{"1.0.0", "1.1.0", "1.2.0", "1.10.0"}, "1.0.0", "1.10.0"},
		{"none newer", []string{"1.0.0", "1.1.0"}, "1.1.0", ""},
		{"only older", []string{"0.9.0", "1.0.0"}, "1.0.0", ""},
		{"a pre-release is not offered to a release", []string{"1.0.0", "1.1.0", "2.0.0-rc.1"}, "1.0.0", "1.1.0"},
		{"nor alone", []string{"1.0.0", "2.0.0-rc.1"}, "1.0.0", ""},
		{"a pre-release is offered to a pre-release", []string{"2.0.0-rc.1", "2.0.0-rc.2"}, "2.0.0-rc.1", "2.0.0-rc.2"},
		{"a release is offered to a pre-release", []string{"2.0.0-rc.1", "2.0.0"}, "2.0.0-rc.1", "2.0.0"},
		{"a development build is not offered to a release", []string{"1.0.0", "1.1.0+dev.1"}, "1.0.0", ""},
		{"a newer development build is offered to one", []string{"1.0.0+dev.1", "1.0.0+dev.2"}, "1.0.0+dev.1", "1.0.0+dev.2"},
		{"a deployed version that is no semantic version", []string{"1.0.0"}, "latest", ""},
	}
	for _, tt := range tests {
		e := catalog.Entry{All: tt.all}
		require.Equal(t, tt.want, e.UpdateFor(tt.deployed), tt.name)
	}
}
