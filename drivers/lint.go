package drivers

import "errors"

// LintPath checks the bundle folder or driver file at path offline and returns
// every problem of its content. The error reports a failure to check, such as
// a missing path or a missing python3.
func LintPath(path string) (Problems, error) {
	_, err := LoadPath(path)
	var ps Problems
	if errors.As(err, &ps) {
		return ps, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, nil
}
