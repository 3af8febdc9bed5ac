// Package release installs, upgrades, rolls back and uninstalls the Helm
// release of a deployment through Helm's SDK (helm.sh/helm/v3/pkg/action), and
// reads its history. Helm keeps each release's records as Secrets in the
// release's namespace, so `helm list -n NS` and `helm history` agree with it.
package release

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/storage/driver"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	styrmin "github.com/styrmin/styrmin"
)

// storageDriver is Helm's storage of release records: Secrets in the release's namespace.
const storageDriver = "secret"

// Client runs Helm operations on one cluster. It is safe for concurrent use:
// every operation builds its own Helm configuration.
type Client struct {
	configure func(namespace string) (*action.Configuration, error)
	log       *slog.Logger
	// maxHistory bounds the revisions kept per release; 0 keeps them all.
	maxHistory int
}

// NewWithHelm returns a Client whose operations run on the Helm configuration
// that configure returns for a namespace. New uses it with the cluster's
// configuration; tests (see releasetest) pass one with in-memory storage.
func NewWithHelm(configure func(namespace string) (*action.Configuration, error), log *slog.Logger) *Client {
	return &Client{configure: configure, log: log}
}

// config is the Helm configuration for operations in namespace.
func (c *Client) config(ctx context.Context, namespace string) (*action.Configuration, error) {
	if namespace == "" {
		return nil, styrmin.Errorf(styrmin.EINVALID, "A release needs a namespace.")
	}
	cfg, err := c.configure(namespace)
	if err != nil {
		return nil, err
	}
	cfg.Releases.MaxHistory = c.maxHistory
	// Helm checks reachability without a context; do not let a dead cluster hold the caller.
	reachable := make(chan error, 1)
	go func() { reachable <- cfg.KubeClient.IsReachable() }()
	select {
	case err := <-reachable:
		if err != nil {
			return nil, &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: "The Kubernetes cluster does not answer.", Err: err}
		}
	case <-ctx.Done():
		return nil, &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: "The Kubernetes cluster did not answer in time.", Err: ctx.Err()}
	}
	return cfg, nil
}

// helmLog adapts log to Helm's printf-style debug log, for one namespace.
func helmLog(log *slog.Logger, namespace string) action.DebugLog {
	return func(format string, v ...any) {
		log.Debug("helm: "+fmt.Sprintf(format, v...), "namespace", namespace)
	}
}

// pendingMessage is the text of Helm's error for a release with an operation
// under way (Helm does not export that error).
const pendingMessage = "another operation (install/upgrade/rollback) is in progress"

// fail wraps err of operation op on release name in namespace, giving Helm's
// well-known failures a code: not found, name in use, operation in progress.
func fail(op, namespace, name string, err error) error {
	var coded *styrmin.Error
	switch {
	case errors.As(err, &coded):
		return fmt.Errorf("release: %s %s: %w", op, name, err)
	case errors.Is(err, driver.ErrReleaseNotFound), errors.Is(err, driver.ErrNoDeployedReleases):
		return &styrmin.Error{Code: styrmin.ENOTFOUND, Message: fmt.Sprintf("There is no release %s in namespace %s.", name, namespace),
			Err: fmt.Errorf("release: %s %s: %w", op, name, err)}
	case strings.Contains(err.Error(), pendingMessage):
		return &styrmin.Error{Code: styrmin.ECONFLICT, Message: fmt.Sprintf("Release %s in namespace %s has an operation in progress; if no process runs it any more, recover the release first.", name, namespace),
			Err: fmt.Errorf("release: %s %s: %w", op, name, err)}
	case apierrors.IsForbidden(err):
		return &styrmin.Error{Code: styrmin.EFORBIDDEN, Message: fmt.Sprintf("The cluster refused release %s's change in namespace %s: %s", name, namespace, statusMessage(err)),
			Err: fmt.Errorf("release: %s %s: %w", op, name, err)}
	case strings.Contains(err.Error(), "cannot re-use a name that is still in use"):
		return &styrmin.Error{Code: styrmin.ECONFLICT, Message: fmt.Sprintf("Release %s already exists in namespace %s.", name, namespace),
			Err: fmt.Errorf("release: %s %s: %w", op, name, err)}
	}
	return fmt.Errorf("release: %s %s: %w", op, name, err)
}

// statusMessage is the API server's own words in err, which Helm's storage
// wraps in its own.
func statusMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}
