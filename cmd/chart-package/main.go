// Command chart-package packages a Helm chart folder as `helm package
// --version V --app-version V` does, through Helm's SDK (the machines that
// build releases have no helm command); scripts/release runs it. It prints
// the archive's path.
//
//	go run ./cmd/chart-package -version 0.1.0 -out dist/0.1.0 deploy/chart
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

func main() {
	version := flag.String("version", "", "the chart's version and appVersion (semantic version, required)")
	out := flag.String("out", ".", "folder to write the archive to")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: chart-package -version V [-out DIR] CHART_DIR")
		os.Exit(2)
	}
	path, err := pack(flag.Arg(0), *version, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chart-package:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

// pack writes the chart in dir, with version as its version and appVersion,
// as NAME-VERSION.tgz into out and returns the archive's path.
func pack(dir, version, out string) (string, error) {
	if _, err := semver.StrictNewVersion(version); err != nil {
		return "", fmt.Errorf("version %q is not a semantic version such as 1.2.3: %w", version, err)
	}
	ch, err := loader.LoadDir(dir)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", dir, err)
	}
	ch.Metadata.Version, ch.Metadata.AppVersion = version, version
	if err := ch.Validate(); err != nil {
		return "", fmt.Errorf("chart %s: %w", dir, err)
	}
	if info, err := os.Stat(out); err != nil || !info.IsDir() {
		return "", errors.Join(fmt.Errorf("output folder %s does not exist", out), err)
	}
	path, err := chartutil.Save(ch, out)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", dir, err)
	}
	return path, nil
}
