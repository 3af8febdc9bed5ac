package deployment_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
)

func TestReadJSONChecksEachValueAgainstItsParametersType(t *testing.T) {
	t.Parallel()
	typed := append(params[:len(params):len(params)],
		drivers.Parameter{Name: "flag", Type: drivers.TypeEnum, Choices: []any{true, false}},
		drivers.Parameter{Name: "size", Type: drivers.TypeEnum, Choices: []any{1, 2.5}},
	)
	for _, tc := range []struct {
		name   string
		values string
		plain  map[string]any
		fields map[string]string
	}{
		{
			name:   "left out: the defaults",
			values: `{"password": "s3cret-pw"}`,
			plain:  map[string]any{"database": "app", "storage_gib": int64(8), "metrics": true, "tier": "small"},
		},
		{
			name: "numbers, strings and booleans of their own types",
			values: `{"password": "s3cret-pw", "storage_gib": 2000, "ratio": 0.25, "metrics": false, "tier": "large",
				"motd": " hello\nworld ", "size": 2.5, "flag": false}`,
			fields: map[string]string{"storage_gib": "2000 is more than the maximum 1024"},
		},
		{
			name:   "strings as a form's text, numbers and booleans as the text they are written as",
			values: `{"password": "s3cret-pw", "storage_gib": " 20 ", "ratio": "0.5", "database": 7, "motd": true, "size": "1"}`,
			plain: map[string]any{"database": "7", "storage_gib": int64(20), "ratio": 0.5, "metrics": true, "tier": "small",
				"motd": "true", "size": 1},
		},
		{
			name:   "null is the same as leaving the value out",
			values: `{"password": "s3cret-pw", "database": null, "metrics": null}`,
			plain:  map[string]any{"database": "app", "storage_gib": int64(8), "metrics": true, "tier": "small"},
		},
		{
			name:   "values of the wrong type get the form's messages",
			values: `{"storage_gib": 2.5, "ratio": "half", "tier": 3, "password": "pw", "motd": 1e21}`,
			fields: map[string]string{
				"storage_gib": `"2.5" is not a whole number`,
				"ratio":       `"half" is not a number`,
				"tier":        `"3" is not one of the choices: "small", "large"`,
				"password":    "is 2 characters long; at least 8 are required",
			},
		},
		{
			name:   "a required value left out",
			values: `{}`,
			fields: map[string]string{"password": "Superuser password is required"},
		},
		{
			name:   "values of a shape no parameter takes are refused before any value is checked",
			values: `{"tier": ["small"], "motd": {"a": 1}, "colour": "red", "metrics": "yes", "storage_gib": 0}`,
			fields: map[string]string{
				"tier":    "tier takes one value, not a list",
				"motd":    "motd takes one value, not an object",
				"colour":  "there is no parameter named colour",
				"metrics": "metrics must be true or false",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, fields := deployment.ReadJSON(typed, decodeJSON(t, tc.values), nil)
			if tc.fields == nil {
				tc.fields = map[string]string{}
			}
			require.Equal(t, tc.fields, fields)
			if tc.plain != nil {
				require.Equal(t, tc.plain, v.Plain)
				require.Equal(t, map[string]string{"password": "s3cret-pw"}, v.Secrets)
			}
		})
	}
}

func TestReadJSONForAnUpgradeStartsFromTheCurrentValues(t *testing.T) {
	t.Parallel()
	current := &deployment.Values{
		Plain:   map[string]any{"database": "shop", "storage_gib": int64(20), "metrics": false, "tier": "large"},
		Secrets: map[string]string{"password": "old-password"},
	}
	v, fields := deployment.ReadJSON(params, decodeJSON(t, `{"ratio": 0.5}`), current)
	require.Empty(t, fields)
	require.Equal(t, map[string]any{"database": "shop", "storage_gib": int64(20), "ratio": 0.5, "metrics": false, "tier": "large"}, v.Plain,
		"a value left out keeps its current value, a false box included")
	require.Equal(t, map[string]string{"password": "old-password"}, v.Secrets, "a secret left out keeps its value")

	v, fields = deployment.ReadJSON(params, decodeJSON(t, `{"password": "new-password", "storage_gib": 30}`), current)
	require.Empty(t, fields)
	require.Equal(t, "new-password", v.Secrets["password"])
	require.Equal(t, int64(30), v.Plain["storage_gib"])

	_, fields = deployment.ReadJSON(params, decodeJSON(t, `{"database": "other"}`), current)
	require.Equal(t, map[string]string{"database": "Database name cannot change after install; it stays shop"}, fields)
}

// decodeJSON decodes an API request's values as the server does.
func decodeJSON(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &v))
	return v
}
