package deployment_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
)

// decodeJSON decodes an API request's values as the server does.
func decodeJSON(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &v))
	return v
}

func TestJSONFormWritesEachValueAsItsFieldWouldHoldIt(t *testing.T) {
	t.Parallel()
	typed := append(params[:len(params):len(params)],
		drivers.Parameter{Name: "flag", Type: drivers.TypeEnum, Choices: []any{true, false}},
		drivers.Parameter{Name: "size", Type: drivers.TypeEnum, Choices: []any{1, 2.5}},
	)
	for _, tc := range []struct {
		name   string
		values string
		form   map[string]string
		fields map[string]string
	}{
		{
			name: "strings as they are, for every type but boolean",
			values: `{"database": "shop", "password": "  s3cret pw ", "storage_gib": "20", "ratio": "0.5",
				"tier": "large", "motd": "hello\nworld"}`,
			form: map[string]string{"database": "shop", "password": "  s3cret pw ", "storage_gib": "20", "ratio": "0.5",
				"tier": "large", "motd": "hello\nworld"},
		},
		{
			name:   "numbers in plain decimal notation",
			values: `{"storage_gib": 1000000, "ratio": 0.25, "size": 2.5, "database": 7, "password": 12345678}`,
			form:   map[string]string{"storage_gib": "1000000", "ratio": "0.25", "size": "2.5", "database": "7", "password": "12345678"},
		},
		{
			name:   "a true boolean is a checked box, a false one an unchecked box (absent)",
			values: `{"metrics": false}`,
			form:   map[string]string{},
		},
		{
			name:   "booleans of other types are their text",
			values: `{"metrics": true, "flag": false, "motd": true}`,
			form:   map[string]string{"metrics": "true", "flag": "false", "motd": "true"},
		},
		{
			name:   "null leaves the field as it starts",
			values: `{"database": null, "metrics": null}`,
			form:   map[string]string{},
		},
		{
			name:   "lists, objects, unknown names and non-booleans for a boolean are refused",
			values: `{"tier": ["small"], "motd": {"a": 1}, "colour": "red", "metrics": "yes"}`,
			form:   map[string]string{},
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
			form, fields := deployment.JSONForm(typed, nil, decodeJSON(t, tc.values))
			require.Equal(t, tc.form, form)
			if tc.fields == nil {
				tc.fields = map[string]string{}
			}
			require.Equal(t, tc.fields, fields)
		})
	}
}

func TestJSONFormStartsFromTheFormsText(t *testing.T) {
	t.Parallel()
	start := deployment.FormText(params, nil)
	form, fields := deployment.JSONForm(params, start, decodeJSON(t, `{"storage_gib": 20, "metrics": false, "password": "s3cret-pw"}`))
	require.Empty(t, fields)
	require.Equal(t, map[string]string{"database": "app", "storage_gib": "20", "tier": "small", "password": "s3cret-pw"}, form,
		"omitted values keep their starting text; false unchecks a box that starts checked")
	require.Equal(t, "true", start["metrics"], "the start is not changed")

	values, bad := deployment.ReadForm(params, form, nil)
	require.Empty(t, bad)
	require.Equal(t, map[string]any{"database": "app", "storage_gib": int64(20), "metrics": false, "tier": "small"}, values.Plain)
	require.Equal(t, map[string]string{"password": "s3cret-pw"}, values.Secrets)
}

func TestJSONFormValuesAreCheckedAsTypedText(t *testing.T) {
	t.Parallel()
	form, fields := deployment.JSONForm(params, nil, decodeJSON(t, `{"storage_gib": 2.5, "ratio": "half", "tier": 3, "password": "pw"}`))
	require.Empty(t, fields)
	_, bad := deployment.ReadForm(params, form, nil)
	require.Equal(t, map[string]string{
		"storage_gib": `"2.5" is not a whole number`,
		"ratio":       `"half" is not a number`,
		"tier":        `"3" is not one of the choices: "small", "large"`,
		"password":    "is 2 characters long; at least 8 are required",
	}, bad)
}
