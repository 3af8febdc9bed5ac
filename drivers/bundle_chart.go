package drivers

import (
	"bytes"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"
)

// loadChart loads the chart that spec.helm.main.location names inside the
// bundle with Helm's loader and checks it against the spec. It returns nil for
// remote charts, which are only checked for form.
func loadChart(rep *report, d *Driver, fsys fs.FS, dir string, files map[string][]byte) *chart.Chart {
	const field = "spec.helm.main.location"
	ref := &d.Spec.Helm.Main
	if chartLocationKind(ref.Location) != locationLocal || rep.reported(field) {
		return nil
	}
	name := bundlePath(ref.Location)
	c, err := readChart(fsys, dir, name, files)
	if err != nil {
		rep.add(field, "cannot load the chart at %s: %v", ref.Location, err)
		return nil
	}
	if c == nil {
		rep.add(field, "no chart at %s: give a folder holding Chart.yaml or a .tgz chart archive", ref.Location)
		return nil
	}
	if ref.Version != "" && !rep.reported("spec.helm.main.version") && c.Metadata.Version != ref.Version {
		rep.add("spec.helm.main.version", "is %s but %s has version %s; make them equal", ref.Version, path.Join(name, "Chart.yaml"), c.Metadata.Version)
	}
	if ref.Chart != "" && !rep.reported("spec.helm.main.chart") && c.Metadata.Name != ref.Chart {
		rep.add("spec.helm.main.chart", "is %s but the chart at %s is named %s; make them equal or remove chart", ref.Chart, ref.Location, c.Metadata.Name)
	}
	return c
}

// readChart loads the chart archive or folder name; nil when there is none.
func readChart(fsys fs.FS, dir, name string, files map[string][]byte) (*chart.Chart, error) {
	if data, ok := files[name]; ok {
		return loader.LoadArchive(bytes.NewReader(data))
	}
	rules := ignore.Empty()
	if data, ok := files[name+"/"+ignore.HelmIgnore]; ok {
		r, err := ignore.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		rules = r
	}
	rules.AddDefaults()
	var chartFiles []*loader.BufferedFile
	for p, data := range files {
		rel, ok := strings.CutPrefix(p, name+"/")
		if !ok {
			continue
		}
		ignored, err := isIgnored(rules, fsys, path.Join(dir, name), rel)
		if err != nil {
			return nil, err
		}
		if !ignored {
			chartFiles = append(chartFiles, &loader.BufferedFile{Name: rel, Data: data})
		}
	}
	if len(chartFiles) == 0 {
		return nil, nil
	}
	return loader.LoadFiles(chartFiles)
}

// isIgnored applies .helmignore rules to a chart file and each of its folders, as helm does.
func isIgnored(rules *ignore.Rules, fsys fs.FS, root, rel string) (bool, error) {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		info, err := fs.Stat(fsys, path.Join(root, p))
		if err != nil {
			return false, err
		}
		if rules.Ignore(p, info) {
			return true, nil
		}
	}
	return false, nil
}
