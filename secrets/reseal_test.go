package secrets_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/secrets"
)

// table is a column of sealed values in memory, one per row, read a page of
// two at a time; it counts the values not under a header as the database does.
type table struct {
	rows [][]byte
}

// column is the table as a SealedColumn, its rows at place "t.c" by index.
func (tb *table) column() secrets.SealedColumn {
	return secrets.PagedColumn(func(_ context.Context, after int) ([]int, error) {
		var page []int
		for i := after + 1; i <= len(tb.rows) && len(page) < 2; i++ {
			page = append(page, i)
		}
		return page, nil
	}, func(i int) secrets.SealedValue {
		old := tb.rows[i-1]
		return secrets.SealedValue{At: secrets.At("t", "c", i), Sealed: old, Replace: func(_ context.Context, resealed []byte) (int64, error) {
			if !bytes.Equal(tb.rows[i-1], old) {
				return 0, nil
			}
			tb.rows[i-1] = resealed
			return 1, nil
		}}
	})
}

// CountSecretsNotUnder counts the rows not sealed under header.
func (tb *table) CountSecretsNotUnder(_ context.Context, header []byte) (int64, error) {
	var n int64
	for _, r := range tb.rows {
		if !bytes.HasPrefix(r, header) {
			n++
		}
	}
	return n, nil
}

// sealedTable is a table of n values sealed by box at their places.
func sealedTable(box *secrets.Box, n int) *table {
	tb := &table{}
	for i := 1; i <= n; i++ {
		tb.rows = append(tb.rows, box.Seal([]byte("value"), secrets.At("t", "c", i)))
	}
	return tb
}

func TestResealAllResealsEveryPageOfEveryColumnUnderTheNewKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old, next := newKey(t), newKey(t)
	tb := sealedTable(newBox(t, old), 5)

	n, err := newBox(t, next, old).ResealAll(ctx, tb, tb.column())
	require.NoError(t, err)
	require.Equal(t, 5, n, "three pages of two, the last one short")
	for i, r := range tb.rows {
		got, err := newBox(t, next).Open(r, secrets.At("t", "c", i+1))
		require.NoError(t, err, "the new key alone opens row %d", i+1)
		require.Equal(t, "value", string(got))
	}
}

func TestResealAllRefusesToFinishWhileAColumnIsLeftOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old, next := newKey(t), newKey(t)
	done, forgotten := sealedTable(newBox(t, old), 1), sealedTable(newBox(t, old), 2)
	left := unsealedSum{done, forgotten}

	n, err := newBox(t, next, old).ResealAll(ctx, left, done.column())
	require.Equal(t, 1, n)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "2 secrets are still sealed under another key")
}

func TestResealAllWithoutTheOldKeyStopsAtTheFirstValueAndNamesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tb := sealedTable(newBox(t, newKey(t)), 2)
	before := bytes.Clone(tb.rows[0])

	_, err := newBox(t, newKey(t)).ResealAll(ctx, tb, tb.column())
	require.ErrorIs(t, err, secrets.ErrWrongKey)
	require.ErrorContains(t, err, "t.c row 1")
	require.Equal(t, before, tb.rows[0], "nothing was replaced")
}

// unsealedSum counts the values of several tables.
type unsealedSum []*table

// CountSecretsNotUnder sums the tables' counts.
func (u unsealedSum) CountSecretsNotUnder(ctx context.Context, header []byte) (int64, error) {
	var n int64
	for _, tb := range u {
		c, _ := tb.CountSecretsNotUnder(ctx, header)
		n += c
	}
	return n, nil
}
