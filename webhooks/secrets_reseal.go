package webhooks

import (
	"context"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/secrets"
)

// SealedSecrets is webhooks.secret for secrets.Box.ResealAll: the
// webhooks' secrets not sealed under the key of header, a page at a time.
func SealedSecrets(q *db.Queries, header []byte) secrets.SealedColumn {
	return secrets.PagedColumn(func(ctx context.Context, after db.ListWebhookSecretsNotUnderRow) ([]db.ListWebhookSecretsNotUnderRow, error) {
		return q.ListWebhookSecretsNotUnder(ctx, db.ListWebhookSecretsNotUnderParams{Header: header, After: after.ID, Page: secrets.ResealPage})
	}, func(r db.ListWebhookSecretsNotUnderRow) secrets.SealedValue {
		return secrets.SealedValue{At: secretAt(r.ID), Sealed: r.Secret, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
			return q.ResealWebhookSecret(ctx, db.ResealWebhookSecretParams{ID: r.ID, Old: r.Secret, New: resealed})
		}}
	})
}
