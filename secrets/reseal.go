package secrets

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// SealedValue is one stored sealed value, where it is and how to replace it.
type SealedValue struct {
	At     Place
	Sealed []byte
	// Replace stores resealed instead of Sealed, unless the value changed
	// since it was read; it returns how many rows it changed.
	Replace func(ctx context.Context, resealed []byte) (int64, error)
}

// SealedColumn returns the next page of a column's values not sealed under
// the current key, and none once the column is done. The package that owns
// a column gives it (deployment.SealedColumns, webhooks.SealedSecrets).
type SealedColumn func(ctx context.Context) ([]SealedValue, error)

// ResealPage is how many values a SealedColumn returns at a time.
const ResealPage = 100

// Unsealed counts the sealed values of every table that are not sealed
// under the key of header. (*db.Queries implements it.)
type Unsealed interface {
	CountSecretsNotUnder(ctx context.Context, header []byte) (int64, error)
}

var _ Unsealed = (*db.Queries)(nil)

// ResealAll seals every value of columns again under b's current key,
// opening each with the key it names (b's previous keys), and returns how
// many it re-sealed. Each value is replaced on its own, only if unchanged
// since it was read: an interrupted run leaves every value sealed under the
// old or the new key, which a box with both opens, and running it again
// finishes the work. It fails, naming the count, when values remain under
// another key (a column left out, or a server still sealing with it).
func (b *Box) ResealAll(ctx context.Context, left Unsealed, columns ...SealedColumn) (int, error) {
	total := 0
	for _, column := range columns {
		n, err := b.resealColumn(ctx, column)
		total += n
		if err != nil {
			return total, err
		}
	}
	n, err := left.CountSecretsNotUnder(ctx, b.Header())
	if err != nil {
		return total, fmt.Errorf("secrets: count the secrets left to re-seal: %w", err)
	}
	if n > 0 {
		return total, styrmin.Errorf(styrmin.ECONFLICT, "%d secrets are still sealed under another key than %s: a server or worker still seals with the old key; restart them all with the new key as STYRMIN_SECRET_KEY and the old one in STYRMIN_PREVIOUS_SECRET_KEYS, then rotate again", n, b.KeyID())
	}
	return total, nil
}

// resealColumn re-seals every value of column under b's current key.
func (b *Box) resealColumn(ctx context.Context, column SealedColumn) (int, error) {
	n := 0
	for {
		page, err := column(ctx)
		if err != nil {
			return n, fmt.Errorf("secrets: list secrets to re-seal: %w", err)
		}
		if len(page) == 0 {
			return n, nil
		}
		for _, v := range page {
			resealed, err := b.Reseal(v.Sealed, v.At)
			if err != nil {
				return n, fmt.Errorf("secrets: re-seal %s: %w", v.At, err)
			}
			changed, err := v.Replace(ctx, resealed)
			if err != nil {
				return n, fmt.Errorf("secrets: re-seal %s: %w", v.At, err)
			}
			n += int(changed)
		}
	}
}

// PagedColumn is the SealedColumn that reads rows a page at a time with
// list, on from the last row of the page before (the zero R at first), and
// makes each row into its value.
func PagedColumn[R any](list func(ctx context.Context, after R) ([]R, error), value func(R) SealedValue) SealedColumn {
	var after R
	return func(ctx context.Context) ([]SealedValue, error) {
		rows, err := list(ctx, after)
		out := make([]SealedValue, len(rows))
		for i, r := range rows {
			out[i] = value(r)
			after = r
		}
		return out, err
	}
}
