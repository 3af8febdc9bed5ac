package schedule

import (
	"context"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/secrets"
)

// SecretsAt is the place of the sealed secret prompts of schedule id.
func SecretsAt(id int64) secrets.Place {
	return secrets.At("action_schedules", "secret_prompts", id)
}

// SealedSecrets is action_schedules.secret_prompts for
// secrets.Box.ResealAll: the values not sealed under the key of header, a
// page at a time.
func SealedSecrets(q *db.Queries, header []byte) secrets.SealedColumn {
	return secrets.PagedColumn(func(ctx context.Context, after db.ListActionScheduleSecretsNotUnderRow) ([]db.ListActionScheduleSecretsNotUnderRow, error) {
		return q.ListActionScheduleSecretsNotUnder(ctx, db.ListActionScheduleSecretsNotUnderParams{Header: header, After: after.ID, Page: secrets.ResealPage})
	}, func(r db.ListActionScheduleSecretsNotUnderRow) secrets.SealedValue {
		return secrets.SealedValue{At: SecretsAt(r.ID), Sealed: r.SecretPrompts, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
			return q.ResealActionScheduleSecrets(ctx, db.ResealActionScheduleSecretsParams{ID: r.ID, Old: r.SecretPrompts, New: resealed})
		}}
	})
}
