package authoring

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/sdk"
)

// Test runs the Python tests in the tests folder of the driver folder p
// (unittest discovery) with the styrmin package, styrmin.testing included,
// on the import path, under the budgets of an action run (actions.RunTests),
// timeout bounding the whole run (actions.DefaultTestTimeout when zero). It writes unittest's output to out and
// reports whether every test passed. The driver must load first: a test of
// a driver Styrmin would refuse proves nothing.
func Test(ctx context.Context, p string, timeout time.Duration, out io.Writer) (bool, error) {
	b, err := drivers.LoadPath(ctx, p)
	if err != nil {
		return false, fmt.Errorf("authoring: test %s: %w", p, err)
	}
	tests, err := drivers.ReadTests(p)
	if err != nil {
		return false, fmt.Errorf("authoring: test %s: %w", p, err)
	}
	if len(tests) == 0 {
		return false, styrmin.Errorf(styrmin.EINVALID, "%s has no %s folder: put unittest files (test_*.py) there; see docs/driver-tutorial.md.", p, drivers.TestsDir)
	}
	python, err := actions.FindPython(ctx)
	if err != nil {
		return false, err
	}
	sdkDir, err := os.MkdirTemp("", "styrmin-sdk-")
	if err != nil {
		return false, fmt.Errorf("authoring: test %s: %w", p, err)
	}
	defer os.RemoveAll(sdkDir)
	if err := sdk.Install(sdkDir); err != nil {
		return false, err
	}
	files := maps.Clone(b.Files)
	maps.Copy(files, tests)
	o, err := actions.RunTests(ctx, actions.TestSpec{Python: python, SDK: sdkDir, Files: files, TestsFolder: drivers.TestsDir, Timeout: timeout}, out)
	if err != nil {
		return false, fmt.Errorf("authoring: test %s: %w", p, err)
	}
	if o.TimedOut {
		if timeout <= 0 {
			timeout = actions.DefaultTestTimeout
		}
		fmt.Fprintf(out, "\nThe tests did not finish within %s and were stopped.\n", timeout)
	}
	return o.Passed(), nil
}
