package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/release"
)

// chartHostsSetting names the setting that holds the allowed chart hosts, a JSON list.
const chartHostsSetting = "chart_hosts"

// ChartHosts returns the hosts an admin allows remote charts to come from
// although they resolve to addresses that are not public (see
// release.ChartHosts); none until an admin sets some.
func (c *Catalog) ChartHosts(ctx context.Context) (release.ChartHosts, error) {
	value, err := c.q.GetSetting(ctx, chartHostsSetting)
	if errors.Is(err, pgx.ErrNoRows) {
		return release.ChartHosts{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: chart hosts: %w", err)
	}
	var hosts release.ChartHosts
	if err := json.Unmarshal(value, &hosts); err != nil {
		return nil, fmt.Errorf("catalog: decode chart hosts: %w", err)
	}
	return hosts, nil
}

// SetChartHosts replaces the allowed chart hosts with entries, checked and
// normalized (release.ParseChartHosts), and returns them as stored. An
// invalid entry is an EINVALID error and changes nothing.
func (c *Catalog) SetChartHosts(ctx context.Context, entries []string) (release.ChartHosts, error) {
	hosts, err := release.ParseChartHosts(entries)
	if err != nil {
		return nil, err
	}
	value, err := json.Marshal(hosts)
	if err != nil {
		return nil, fmt.Errorf("catalog: encode chart hosts: %w", err)
	}
	err = audit.Change(ctx, c.conn, func(tx pgx.Tx) (string, error) {
		return chartHostsSetting, c.q.WithTx(tx).UpsertSetting(ctx, db.UpsertSettingParams{Name: chartHostsSetting, Value: value})
	})
	if err != nil {
		return nil, fmt.Errorf("catalog: set chart hosts: %w", err)
	}
	return hosts, nil
}
