package drivers

import (
	"context"
	"errors"
)

// LintPath checks the bundle folder or driver file at path offline and returns
// every problem of its content. The error reports a failure to check, such as
// a missing path, a missing python3 or the end of ctx.
func LintPath(ctx context.Context, path string) (Problems, error) {
	_, err := LoadPath(ctx, path)
	var ps Problems
	if errors.As(err, &ps) {
		return ps, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, nil
}
