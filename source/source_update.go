package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
)

// Change is what an admin changes of a source's signature policy and
// trusted keys; what is not set stays. The versions a source read stay as
// they are (imported or refused): the next sync checks new versions only,
// under the new policy and keys.
type Change struct {
	// SignedOnly, when set, is the new policy.
	SignedOnly *bool
	// AddKeys are keys to trust, each under a name the source has not.
	AddKeys []Key
	// RemoveKeys are the names of keys to trust no more.
	RemoveKeys []string
}

// Update changes the source name's policy and keys as ch says, in an
// audited transaction. Errors: ENOTFOUND; EINVALID with fields
// (signed_only, keys, remove_keys) when a key to remove is not there, a key
// added is not valid or its name is taken, or a signed-only source would
// have no key.
func (s *Service) Update(ctx context.Context, name string, ch Change) (Source, error) {
	err := audit.Change(ctx, s.conn, func(tx pgx.Tx) (string, error) {
		q := s.q.WithTx(tx)
		row, err := q.LockCatalogueSource(ctx, name)
		if errors.Is(err, pgx.ErrNoRows) {
			return name, styrmin.Errorf(styrmin.ENOTFOUND, "There is no source named %s.", name)
		}
		if err != nil {
			return name, db.Classify(err)
		}
		var keys []Key
		if err := json.Unmarshal(row.Keys, &keys); err != nil {
			return name, fmt.Errorf("decode keys: %w", err)
		}
		signedOnly, keys, err := ch.apply(row.SignedOnly, keys)
		if err != nil {
			return name, err
		}
		data, err := json.Marshal(keys)
		if err != nil {
			return name, err
		}
		if err := q.UpdateCatalogueSourcePolicy(ctx, db.UpdateCatalogueSourcePolicyParams{ID: row.ID, SignedOnly: signedOnly, Keys: data}); err != nil {
			return name, db.Classify(err)
		}
		ch.note(ctx, signedOnly)
		return name, nil
	})
	if err != nil {
		return Source{}, fmt.Errorf("source: update %s: %w", name, err)
	}
	return s.Get(ctx, name)
}

// apply returns the policy and keys ch makes of signedOnly and keys; an
// EINVALID error names each wrong field.
func (ch Change) apply(signedOnly bool, keys []Key) (bool, []Key, error) {
	fields := map[string]string{}
	for _, gone := range ch.RemoveKeys {
		i := slices.IndexFunc(keys, func(k Key) bool { return k.Name == gone })
		if i < 0 {
			fields["remove_keys"] = fmt.Sprintf("the source has no key named %q to remove", gone)
			continue
		}
		keys = slices.Delete(keys, i, i+1)
	}
	for _, k := range ch.AddKeys {
		if slices.ContainsFunc(keys, func(have Key) bool { return have.Name == k.Name }) {
			fields["keys"] = fmt.Sprintf("the source trusts a key named %s already: remove it in the same change to replace it", k.Name)
		}
	}
	keys = append(keys, ch.AddKeys...)
	if ch.SignedOnly != nil {
		signedOnly = *ch.SignedOnly
	}
	if _, problem := verifiers(keys); problem != "" && fields["keys"] == "" {
		fields["keys"] = problem
	}
	if signedOnly && len(keys) == 0 && len(fields) == 0 {
		fields["signed_only"] = "a source that requires signatures needs at least one public key: keep one, or allow unsigned versions"
	}
	if len(fields) > 0 {
		return false, nil, &styrmin.Error{Code: styrmin.EINVALID, Message: "The change is not valid.", Fields: fields}
	}
	return signedOnly, keys, nil
}

// note adds what the change was to its audit entry.
func (ch Change) note(ctx context.Context, signedOnly bool) {
	audit.Note(ctx, "signed_only", strconv.FormatBool(signedOnly))
	added := make([]string, 0, len(ch.AddKeys))
	for _, k := range ch.AddKeys {
		added = append(added, k.Name)
	}
	if len(added) > 0 {
		audit.Note(ctx, "added_keys", strings.Join(added, ", "))
	}
	if len(ch.RemoveKeys) > 0 {
		audit.Note(ctx, "removed_keys", strings.Join(ch.RemoveKeys, ", "))
	}
}
