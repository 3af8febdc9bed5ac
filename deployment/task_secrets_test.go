package deployment

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTaskSecretsSplitBackAsTheyWereSealed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   TaskSecretInputs
	}{
		{"parameters only", TaskSecretInputs{Params: map[string]string{"password": "p"}, Prompts: map[string]map[string]string{}}},
		{"prompts only", TaskSecretInputs{Params: map[string]string{}, Prompts: map[string]map[string]string{"back-up": {"key": "k", "token": "t"}}}},
		{"both, a prompt named as a parameter", TaskSecretInputs{
			Params:  map[string]string{"password": "param"},
			Prompts: map[string]map[string]string{"seed": {"password": "prompt"}, "archive": {"password": "other"}},
		}},
		{"nothing", TaskSecretInputs{Params: map[string]string{}, Prompts: map[string]map[string]string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SplitTaskSecrets(tc.in.sealable())
			require.NoError(t, err)
			require.Equal(t, tc.in, got)
		})
	}

	_, err := SplitTaskSecrets(map[string]string{"prompt/seed": "x"})
	require.ErrorContains(t, err, `secret input "prompt/seed" names no action and prompt`)
}

func TestWithSecretPromptsGivesTheRunnerEveryPrompt(t *testing.T) {
	t.Parallel()
	plain := map[string]map[string]any{"seed": {"keys": 5}}
	got := WithSecretPrompts(plain, map[string]map[string]string{"seed": {"api_key": "k"}, "archive": {"token": "t"}})
	require.Equal(t, map[string]map[string]any{"seed": {"keys": 5, "api_key": "k"}, "archive": {"token": "t"}}, got)
	require.Equal(t, map[string]map[string]any{"seed": {"keys": 5}}, plain, "the task's inputs are left as they are")
}
