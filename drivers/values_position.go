package drivers

import (
	"context"
	"errors"
	"path"
	"path/filepath"
)

// ValuesProblem returns an error of the values template of b's driver (a
// *TemplateError from RenderValues with other values than lint's) as the
// Problems lint would report: at its line and column in the driver file.
// Other errors come back unchanged.
func (b *Bundle) ValuesProblem(ctx context.Context, err error) error {
	var te *TemplateError
	if !errors.As(err, &te) {
		return err
	}
	data := b.Files[path.Base(filepath.ToSlash(b.Path))]
	rep := newReport(b.Path)
	if !decodeFile(rep, data, &Driver{}) {
		return err
	}
	rep.problems = nil // the driver loaded: only positions are wanted
	names := make([]string, 0, len(b.Driver.Spec.Parameters))
	for _, p := range b.Driver.Spec.Parameters {
		names = append(names, p.Name)
	}
	reportTemplateError(rep, data, te, names)
	if ps := rep.result(); ps != nil {
		return ps
	}
	return err
}
