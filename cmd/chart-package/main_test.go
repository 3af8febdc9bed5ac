package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
)

const chartDir = "../../deploy/chart"

func TestPackStampsTheVersionIntoTheArchive(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	path, err := pack(chartDir, "1.2.3-rc.1", out)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(out, "styrmin-1.2.3-rc.1.tgz"), path)

	ch, err := loader.LoadFile(path)
	require.NoError(t, err)
	require.Equal(t, "1.2.3-rc.1", ch.Metadata.Version)
	require.Equal(t, "1.2.3-rc.1", ch.Metadata.AppVersion)
	src, err := loader.LoadDir(chartDir)
	require.NoError(t, err)
	require.Len(t, ch.Templates, len(src.Templates), "every template is packaged")
	require.Equal(t, src.Values, ch.Values)
}

func TestPackRefusesBadInput(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	_, err := pack(chartDir, "v1", out)
	require.ErrorContains(t, err, `version "v1" is not a semantic version such as 1.2.3`)
	_, err = pack(chartDir, "", out)
	require.ErrorContains(t, err, `version "" is not a semantic version`)
	_, err = pack(t.TempDir(), "1.0.0", out)
	require.ErrorContains(t, err, "load ")
	_, err = pack(chartDir, "1.0.0", filepath.Join(out, "missing"))
	require.ErrorContains(t, err, "output folder "+filepath.Join(out, "missing")+" does not exist")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is written on a refusal")
}
