package teams

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
)

// FollowGroups sets a user's memberships of the teams roles names to what
// their identity provider's groups give (sso.Result.Teams): a member with
// that role, or no member where it is auth.Anonymous. Their memberships of
// teams roles does not name stay as they are. It returns the changes made,
// as "team=role" ("team=none" for one left), and the teams named that do
// not exist, which it skips.
func (s *Store) FollowGroups(ctx context.Context, userID int64, roles map[string]auth.Role) (changed, unknown []string, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		changed, unknown = nil, nil
		q := s.q.WithTx(tx)
		mine, err := q.ListUserTeams(ctx, userID)
		if err != nil {
			return err
		}
		had := map[string]string{}
		for _, m := range mine {
			had[m.Name] = m.Role
		}
		for _, name := range slices.Sorted(maps.Keys(roles)) {
			role := roles[name]
			want := role.String()
			if role == auth.Anonymous {
				want = "none"
			}
			if has, ok := had[name]; (ok && has == want) || (!ok && want == "none") {
				continue
			}
			team, err := q.GetTeamByName(ctx, name)
			if errors.Is(err, pgx.ErrNoRows) {
				unknown = append(unknown, name)
				continue
			} else if err != nil {
				return err
			}
			if role == auth.Anonymous {
				_, err = q.RemoveTeamMember(ctx, db.RemoveTeamMemberParams{TeamID: team.ID, UserID: userID})
			} else {
				_, err = q.SetTeamMember(ctx, db.SetTeamMemberParams{TeamID: team.ID, UserID: userID, Role: want})
			}
			if err != nil {
				return err
			}
			changed = append(changed, name+"="+want)
		}
		return nil
	})
	return changed, unknown, db.Classify(err)
}
