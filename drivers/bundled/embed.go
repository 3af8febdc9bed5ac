// Package bundled holds the driver bundles that ship inside the Styrmin binary:
// one folder per driver, each with its driver.styrmin.yml, icon, README, Python
// actions and local Helm chart.
package bundled

import (
	"embed"
	"fmt"
	"io/fs"
)

// bundles is every bundle folder; "all:" keeps files such as chart/templates/_helpers.tpl.
//
//go:embed all:hello-web all:postgresql all:redis
var bundles embed.FS

// Bundles returns the bundled drivers as a read-only file system whose top-level
// folders are the bundles (for example "postgresql/driver.styrmin.yml").
func Bundles() fs.FS {
	return bundles
}

// Names returns the folder names of the bundled drivers, sorted by name.
func Names() []string {
	entries, err := fs.ReadDir(bundles, ".")
	if err != nil {
		// The embedded root always exists; failing here means a broken build.
		panic(fmt.Sprintf("catalog: read embedded bundles: %v", err))
	}
	names := make([]string, 0, len(entries))
	for _, entry := range entries {
		if entry.IsDir() {
			names = append(names, entry.Name())
		}
	}
	return names
}
