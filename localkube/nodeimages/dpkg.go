package nodeimages

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// installedVersions reads dpkg's status file: the version of every
// installed package.
func installedVersions(status []byte) map[string]string {
	versions := map[string]string{}
	var name, version string
	installed := false
	flush := func() {
		if name != "" && installed {
			versions[name] = version
		}
		name, version, installed = "", "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "Package: "):
			name = strings.TrimPrefix(line, "Package: ")
		case strings.HasPrefix(line, "Version: "):
			version = strings.TrimPrefix(line, "Version: ")
		case strings.HasPrefix(line, "Status: "):
			installed = strings.HasSuffix(line, " installed")
		}
	}
	flush()
	return versions
}

// upstreamVersion is a Debian version without its epoch and Debian
// revision: "5:7.0.15-1~deb12u5" is 7.0.15.
func upstreamVersion(debian string) string {
	if _, after, ok := strings.Cut(debian, ":"); ok {
		debian = after
	}
	if i := strings.LastIndex(debian, "-"); i > 0 {
		debian = debian[:i]
	}
	return debian
}

// runs says what runs in s, with the versions installed in the base:
// "Debian BusyBox 1.35.0 with GNU Wget 1.21.3".
func (s standIn) runs(versions map[string]string) (string, error) {
	var parts []string
	for _, c := range append([]component{{product: s.product, pkg: s.pkg}}, s.with...) {
		v, ok := versions[c.pkg]
		if !ok {
			return "", fmt.Errorf("package %s is not installed in the base", c.pkg)
		}
		parts = append(parts, c.product+" "+upstreamVersion(v))
	}
	return "Debian " + strings.Join(parts, " with "), nil
}
