package deployer

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// objects are the calls apply makes on a cluster-scoped kind T.
type objects[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// apply creates want, or sets (with set) the object of its name to it,
// retrying when another Styrmin process does the same at the same time.
func apply[T interface{ GetName() string }](ctx context.Context, client objects[T], want T, set func(have T)) error {
	return retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		have, err := client.Get(ctx, want.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = client.Create(ctx, want, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		set(have)
		_, err = client.Update(ctx, have, metav1.UpdateOptions{})
		return err
	})
}
