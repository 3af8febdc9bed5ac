package webhooks

import (
	"context"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
)

// SealedSecrets is webhooks.secret for deployment.ResealSecrets: the
// webhooks' secrets not sealed under the key of header, a page at a time.
func SealedSecrets(q *db.Queries, header []byte) deployment.SealedColumn {
	var after int64
	return func(ctx context.Context) ([]deployment.SealedValue, error) {
		rows, err := q.ListWebhookSecretsNotUnder(ctx, db.ListWebhookSecretsNotUnderParams{Header: header, After: after, Page: deployment.ResealPage})
		out := make([]deployment.SealedValue, len(rows))
		for i, r := range rows {
			out[i] = deployment.SealedValue{At: secretAt(r.ID), Sealed: r.Secret, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
				return q.ResealWebhookSecret(ctx, db.ResealWebhookSecretParams{ID: r.ID, Old: r.Secret, New: resealed})
			}}
			after = r.ID
		}
		return out, err
	}
}
