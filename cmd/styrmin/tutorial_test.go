package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/devcluster/kubetest"
)

// tutorialBlock is a fenced block of docs/driver-tutorial.md marked `console
// tutorial`: one command (after "$ ") and the output it shows.
type tutorialBlock struct {
	args   []string
	output []string
}

// tutorialBlocks reads the command blocks of the tutorial.
func tutorialBlocks(t *testing.T, markdown string) []tutorialBlock {
	t.Helper()
	var blocks []tutorialBlock
	in := false
	for line := range strings.Lines(markdown) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "```console tutorial":
			in = true
		case in && line == "```":
			in = false
		case in && strings.HasPrefix(line, "$ styrmin driver "):
			blocks = append(blocks, tutorialBlock{args: strings.Fields(strings.TrimPrefix(line, "$ styrmin driver "))})
		case in && strings.HasPrefix(line, "$ "):
			t.Fatalf("the tutorial runs only styrmin driver commands: %s", line)
		case in:
			require.NotEmpty(t, blocks, "output before any command: %s", line)
			blocks[len(blocks)-1].output = append(blocks[len(blocks)-1].output, line)
		}
	}
	require.False(t, in, "a tutorial block is not closed")
	return blocks
}

// varying are the parts of a line that vary from run to run, each with
// what stands for it when lines are compared: unittest's and the tasks'
// durations, and the namespace `driver test --cluster` makes up.
var varying = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^(Ran \d+ tests?) in \d+\.\d+s$`), "$1 in Ns"},
	{regexp.MustCompile(`(\(\w+ task\): \w+) in \d+\.\ds\b`), "$1 in Ns"},
	{regexp.MustCompile(`\bstyrmin-test-\d{10}\b`), "styrmin-test-N"},
}

// steady is line with its varying parts replaced.
func steady(line string) string {
	for _, v := range varying {
		line = v.re.ReplaceAllString(line, v.with)
	}
	return line
}

// matchesExcerpt reports whether want, lines of output where "..." stands for
// any number of lines, is the whole of got.
func matchesExcerpt(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if matchesExcerpt(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	return steady(want[0]) == steady(got[0]) && matchesExcerpt(want[1:], got[1:])
}

// TestDriverTutorial runs the commands of docs/driver-tutorial.md in an empty
// folder, in order, and checks that each prints what the tutorial shows;
// then it publishes the driver and deploys it as steps 7 and 8 say
// (publishAndDeploy). A command with --cluster, and the last part, run on
// the local cluster, in subtests that kubetest skips (saying so) where there
// is none (-short).
func TestDriverTutorial(t *testing.T) {
	markdown, err := os.ReadFile(filepath.Join("..", "..", "docs", "driver-tutorial.md"))
	require.NoError(t, err)
	blocks := tutorialBlocks(t, string(markdown))
	require.GreaterOrEqual(t, len(blocks), 5, "new, lint, render, test and test --cluster")
	require.True(t, slices.ContainsFunc(blocks, tutorialBlock.onCluster), "the tutorial tries the driver on a cluster")
	pkgDir, err := os.Getwd()
	require.NoError(t, err)
	work := t.TempDir()
	t.Chdir(work)
	for _, b := range blocks {
		if !b.onCluster() {
			requireTutorialOutput(t, b, b.args)
			continue
		}
		t.Run(strings.Join(b.args, " "), func(t *testing.T) {
			t.Chdir(pkgDir) // kubetest finds the checkout's cluster from here
			kubeconfig := kubetest.Kubeconfig(t)
			t.Chdir(work)
			requireTutorialOutput(t, b, append(slices.Clone(b.args), "--kubeconfig", kubeconfig))
		})
	}
	t.Run("publish signed, deploy from the source; a tampered version is refused", func(t *testing.T) {
		t.Chdir(pkgDir)
		kubeconfig := kubetest.Kubeconfig(t)
		t.Chdir(work)
		publishAndDeploy(t, kubeconfig)
	})
}

// onCluster reports whether the block's command deploys to a cluster.
func (b tutorialBlock) onCluster() bool { return slices.Contains(b.args, "--cluster") }

// requireTutorialOutput runs `styrmin driver ARGS...` and checks that it
// prints what block b shows.
func requireTutorialOutput(t *testing.T, b tutorialBlock, args []string) {
	t.Helper()
	out, errOut, err := runDriverCmd(t, args...)
	if err != nil && !errors.Is(err, errSilent) {
		errOut += "styrmin: " + err.Error() + "\n"
	}
	got := strings.Split(strings.TrimSuffix(out+errOut, "\n"), "\n")
	if out+errOut == "" {
		got = nil
	}
	require.True(t, matchesExcerpt(b.output, got), "styrmin driver %s printed:\n%s\nthe tutorial shows:\n%s",
		strings.Join(b.args, " "), out+errOut, strings.Join(b.output, "\n"))
}

func TestMatchesExcerpt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		want, got []string
		ok        bool
	}{
		{nil, nil, true},
		{nil, []string{"a"}, false},
		{[]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "b", "c"}, false},
		{[]string{"...", "b"}, []string{"b", "c"}, false},
		{[]string{"a"}, []string{"b"}, false},
		{[]string{"Ran 6 tests in 0.035s"}, []string{"Ran 6 tests in 1.250s"}, true},
		{[]string{"Ran 6 tests in 0.035s"}, []string{"Ran 5 tests in 0.035s"}, false},
		{[]string{"stop (stop task): succeeded in 3.2s"}, []string{"stop (stop task): succeeded in 12.9s"}, true},
		{[]string{"stop (stop task): succeeded in 3.2s"}, []string{"stop (stop task): failed in 3.2s"}, false},
		{[]string{"Namespace styrmin-test-0123456789 is gone."}, []string{"Namespace styrmin-test-9876543210 is gone."}, true},
		{[]string{"Namespace styrmin-test-0123456789 is gone."}, []string{"Namespace other-0123456789 is gone."}, false},
	} {
		require.Equal(t, tc.ok, matchesExcerpt(tc.want, tc.got), "%q against %q", tc.want, tc.got)
	}
}
