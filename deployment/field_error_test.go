package deployment_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
)

func TestFieldFormKeysAreTheFormsAndTheAPIsKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		field deployment.Field
		key   string
	}{
		{deployment.Field{Kind: deployment.FieldName}, "name"},
		{deployment.Field{Kind: deployment.FieldNamespace}, "namespace"},
		{deployment.Field{Kind: deployment.FieldDriverVersion}, "driver_version"},
		{deployment.Field{Kind: deployment.FieldAppVersion}, "app_version"},
		{deployment.Field{Kind: deployment.FieldConfirm}, "confirm"},
		{deployment.ParamField("replicas"), "param.replicas"},
		{deployment.PromptField("seed", "keys"), "prompt.seed.keys"},
		{deployment.PromptField("seed", ""), "prompt.seed"},
	} {
		require.Equal(t, tc.key, tc.field.FormKey())
	}
}

func TestInvalidErrorIsAnEINVALIDErrorWithItsFieldsKeyed(t *testing.T) {
	t.Parallel()
	invalid := &deployment.InvalidError{Fields: []deployment.FieldError{
		{Field: deployment.ParamField("replicas"), Message: "0 is less than the minimum 1"},
		{Field: deployment.PromptField("seed", "keys"), Message: "keys is required"},
	}}
	err := fmt.Errorf("deployment: install site: %w", invalid)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Equal(t, deployment.InvalidFields, styrmin.ErrorMessage(err))
	require.Equal(t, map[string]string{"param.replicas": "0 is less than the minimum 1", "prompt.seed.keys": "keys is required"},
		styrmin.ErrorFields(err))
	var got *deployment.InvalidError
	require.True(t, errors.As(err, &got))
	require.Equal(t, invalid.Fields, got.Fields, "the typed fields stay readable for the adapters")
}
