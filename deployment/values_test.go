package deployment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
)

func ptr[T any](v T) *T { return &v }

// params is a driver's parameters with one of each kind the form treats apart.
var params = []drivers.Parameter{
	{Name: "database", Title: "Database name", Type: drivers.TypeString, Default: "app", Required: true, Immutable: true},
	{Name: "password", Title: "Superuser password", Type: drivers.TypeSecret, Required: true, MinLength: ptr(8)},
	{Name: "storage_gib", Title: "Storage (GiB)", Type: drivers.TypeInteger, Default: 8, Min: ptr(1.0), Max: ptr(1024.0)},
	{Name: "ratio", Type: drivers.TypeNumber},
	{Name: "metrics", Type: drivers.TypeBoolean, Default: true},
	{Name: "tier", Type: drivers.TypeEnum, Choices: []any{"small", "large"}, Default: "small"},
	{Name: "motd", Type: drivers.TypeText},
}

func TestReadFormForAnInstall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		form   map[string]string
		plain  map[string]any
		secret map[string]string
		fields map[string]string
	}{
		{
			name:   "blank fields take their defaults; an unchecked box is false",
			form:   map[string]string{"password": "s3cret-pw", "database": " ", "storage_gib": ""},
			plain:  map[string]any{"database": "app", "storage_gib": int64(8), "metrics": false, "tier": "small"},
			secret: map[string]string{"password": "s3cret-pw"},
		},
		{
			name: "typed values are checked and kept",
			form: map[string]string{"password": "s3cret-pw", "database": "shop", "storage_gib": " 20 ", "ratio": "0.5",
				"metrics": "true", "tier": "large", "motd": "  hello\nworld"},
			plain: map[string]any{"database": "shop", "storage_gib": int64(20), "ratio": 0.5, "metrics": true,
				"tier": "large", "motd": "  hello\nworld"},
			secret: map[string]string{"password": "s3cret-pw"},
		},
		{
			name: "each bad field has its message",
			form: map[string]string{"password": "short", "storage_gib": "2000", "ratio": "half", "tier": "huge"},
			fields: map[string]string{
				"password":    "is 5 characters long; at least 8 are required",
				"storage_gib": "2000 is more than the maximum 1024",
				"ratio":       `"half" is not a number`,
				"tier":        `"huge" is not one of the choices: "small", "large"`,
			},
		},
		{
			name:   "a required parameter without default must be given",
			form:   map[string]string{},
			fields: map[string]string{"password": "Superuser password is required"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, fields := deployment.ReadForm(params, tc.form, nil)
			if tc.fields != nil {
				require.Equal(t, tc.fields, fields)
				return
			}
			require.Empty(t, fields)
			require.Equal(t, tc.plain, v.Plain)
			require.Equal(t, tc.secret, v.Secrets)
		})
	}
}

func TestReadFormForAnUpgrade(t *testing.T) {
	t.Parallel()
	current := &deployment.Values{
		Plain:   map[string]any{"database": "shop", "storage_gib": float64(20), "metrics": true, "tier": "large"},
		Secrets: map[string]string{"password": "old-password"},
	}
	t.Run("a blank secret keeps its value; same immutable value passes", func(t *testing.T) {
		t.Parallel()
		v, fields := deployment.ReadForm(params, map[string]string{"database": "shop", "storage_gib": "20", "tier": "large", "metrics": "true"}, current)
		require.Empty(t, fields)
		require.Equal(t, "old-password", v.Secrets["password"])
		require.Equal(t, int64(20), v.Plain["storage_gib"])
	})
	t.Run("a re-entered secret replaces it", func(t *testing.T) {
		t.Parallel()
		v, fields := deployment.ReadForm(params, map[string]string{"database": "shop", "password": "new-password"}, current)
		require.Empty(t, fields)
		require.Equal(t, "new-password", v.Secrets["password"])
	})
	t.Run("a crafted change of an immutable parameter is refused", func(t *testing.T) {
		t.Parallel()
		_, fields := deployment.ReadForm(params, map[string]string{"database": "other"}, current)
		require.Equal(t, map[string]string{"database": "Database name cannot change after install; it stays shop"}, fields)
	})
}

func TestFormTextStartsFromCurrentValuesOrDefaultsAndNeverASecret(t *testing.T) {
	t.Parallel()
	require.Equal(t, map[string]string{"database": "app", "storage_gib": "8", "metrics": "true", "tier": "small"},
		deployment.FormText(params, nil))
	current := &deployment.Values{
		Plain:   map[string]any{"database": "shop", "storage_gib": float64(2000000), "metrics": false},
		Secrets: map[string]string{"password": "old-password"},
	}
	require.Equal(t, map[string]string{"database": "shop", "storage_gib": "2000000", "tier": "small"},
		deployment.FormText(params, current))
}

func TestCompareShowsChangesAndHidesSecrets(t *testing.T) {
	t.Parallel()
	old := deployment.Values{
		Plain:   map[string]any{"database": "shop", "storage_gib": float64(8), "legacy": "x"},
		Secrets: map[string]string{"password": "old-password"},
	}
	new := deployment.Values{
		Plain:   map[string]any{"database": "shop", "storage_gib": int64(16), "tier": "small"},
		Secrets: map[string]string{"password": "new-password"},
	}
	changes := deployment.Compare(params[:3], old, new)
	changes = append(changes, deployment.Compare(params[5:6], deployment.Values{}, new)...)
	require.Equal(t, []deployment.Change{
		{Name: "database", Title: "Database name", Kind: "unchanged", Old: "shop", New: "shop"},
		{Name: "password", Title: "Superuser password", Kind: "changed", Secret: true},
		{Name: "storage_gib", Title: "Storage (GiB)", Kind: "changed", Old: "8", New: "16"},
		{Name: "legacy", Title: "legacy", Kind: "removed", Old: "x"},
		{Name: "tier", Title: "tier", Kind: "added", New: "small"},
	}, changes)
}
