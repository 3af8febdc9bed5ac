package secrets

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// checkText is the known value that proves a key is the database's.
const checkText = "styrmin secret key check"

// checkSetting names the key check in the settings table.
const checkSetting = "secret_key_check"

// checkPlace is where the key check is kept; version-1 key checks were
// sealed with their own text as the label.
var checkPlace = At("settings", "value", checkSetting).WithV1Label(checkText)

// Settings stores the key check: a known value sealed with the first key the
// database saw, and with the current one after a rotation. (*db.Queries
// implements it.)
type Settings interface {
	InsertSettingIfAbsent(ctx context.Context, arg db.InsertSettingIfAbsentParams) error
	GetSetting(ctx context.Context, name string) ([]byte, error)
	ReplaceSetting(ctx context.Context, arg db.ReplaceSettingParams) (int64, error)
}

var _ Settings = (*db.Queries)(nil)

// Verify fails with a clear error when none of b's keys is the one this
// database's secrets were last sealed with; on the first start it records
// the key check under the current key.
func (b *Box) Verify(ctx context.Context, settings Settings) error {
	if err := settings.InsertSettingIfAbsent(ctx, db.InsertSettingIfAbsentParams{Name: checkSetting, Value: b.Seal([]byte(checkText), checkPlace)}); err != nil {
		return fmt.Errorf("secrets: record the key check: %w", err)
	}
	sealed, err := settings.GetSetting(ctx, checkSetting)
	if err != nil {
		return fmt.Errorf("secrets: read the key check: %w", err)
	}
	if _, err := b.Open(sealed, checkPlace); err != nil {
		return styrmin.Errorf(styrmin.EINVALID, "secrets: neither STYRMIN_SECRET_KEY nor a key of STYRMIN_PREVIOUS_SECRET_KEYS is the key this database's secrets were encrypted with; start with the original key, or during a rotation with the new key and the old one as a previous key (a lost key means re-entering every secret parameter)")
	}
	return nil
}

// ResealCheck seals the key check again under the current key, after every
// other value was re-sealed: from then on, a server given only an older key
// refuses to start (Verify) instead of failing to open values.
func (b *Box) ResealCheck(ctx context.Context, settings Settings) error {
	sealed, err := settings.GetSetting(ctx, checkSetting)
	if err != nil {
		return fmt.Errorf("secrets: read the key check: %w", err)
	}
	resealed, err := b.Reseal(sealed, checkPlace)
	if err != nil {
		return fmt.Errorf("secrets: re-seal the key check: %w", err)
	}
	if _, err := settings.ReplaceSetting(ctx, db.ReplaceSettingParams{Name: checkSetting, Old: sealed, New: resealed}); err != nil {
		return fmt.Errorf("secrets: re-seal the key check: %w", err)
	}
	return nil
}

// KeyConfig is how the keys are given: the current key as text or a file,
// and the previous keys as text or a file (see LoadKey, LoadPreviousKeys).
type KeyConfig struct {
	Key, KeyFile                  string
	PreviousKeys, PreviousKeyFile string
}

// OpenBox returns the box of cfg's keys, once the database has confirmed
// (Verify) that one of them is the key its secrets were sealed with.
func OpenBox(ctx context.Context, settings Settings, cfg KeyConfig) (*Box, error) {
	current, err := LoadKey(cfg.Key, cfg.KeyFile)
	if err != nil {
		return nil, err
	}
	previous, err := LoadPreviousKeys(cfg.PreviousKeys, cfg.PreviousKeyFile)
	if err != nil {
		return nil, err
	}
	box, err := NewBox(current, previous...)
	if err != nil {
		return nil, err
	}
	if err := box.Verify(ctx, settings); err != nil {
		return nil, err
	}
	return box, nil
}
