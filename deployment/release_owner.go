package deployment

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/release"
)

// installationSetting names the settings row that holds this Styrmin
// installation's id, the mark of its releases (release.Owner).
const installationSetting = "installation_id"

// ReleaseOwner is the owner of a deployment's Helm release: this
// installation and the deployment. The installation's id is generated on
// first use and kept in the database, so every server and worker of one
// installation marks and recognises the same releases.
func (s *Service) ReleaseOwner(ctx context.Context, deploymentID int64) (release.Owner, error) {
	if err := s.q.InsertSettingIfAbsent(ctx, db.InsertSettingIfAbsentParams{Name: installationSetting, Value: []byte(rand.Text())}); err != nil {
		return release.Owner{}, fmt.Errorf("deployment: store the installation id: %w", err)
	}
	id, err := s.q.GetSetting(ctx, installationSetting)
	if err != nil {
		return release.Owner{}, fmt.Errorf("deployment: read the installation id: %w", err)
	}
	return release.Owner{Installation: string(id), Deployment: deploymentID}, nil
}
