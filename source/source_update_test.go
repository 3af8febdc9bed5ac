package source_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/source"
)

func TestAKeyChangeAppliesToNewVersionsAndKeepsTheVersionsRead(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{}, true)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	alice, mallory := pairs[0], pairs[1]
	b.reg.Push(t, "1.0.1")
	b.reg.Sign(t, "1.0.1", alice)
	b.reg.Push(t, "1.0.2")
	b.reg.Sign(t, "1.0.2", mallory)
	_, err = b.sources.Add(b.ctx, source.NewSource{Name: "acme", URL: b.reg.Repo.String(), SignedOnly: true,
		Keys: []source.Key{{Name: "alice", PEM: string(alice.Public)}}}, "admin")
	require.NoError(t, err)
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	require.Equal(t, source.Refused, versionsByTag(t, b, "acme")["1.0.2"].Status)

	// Alice hands over to Mallory: her key goes, his comes.
	src, err := b.sources.Update(b.ctx, "acme", source.Change{RemoveKeys: []string{"alice"},
		AddKeys: []source.Key{{Name: "mallory", PEM: string(mallory.Public)}}})
	require.NoError(t, err)
	require.Equal(t, []source.Key{{Name: "mallory", PEM: string(mallory.Public)}}, src.Keys)
	require.True(t, src.SignedOnly, "the policy stays when the change does not set it")

	b.reg.Push(t, "1.0.3")
	b.reg.Sign(t, "1.0.3", mallory)
	require.NoError(t, b.sources.RequestSync(b.ctx, "acme"))
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	got := versionsByTag(t, b, "acme")
	require.Equal(t, source.Imported, got["1.0.3"].Status, "a new version is checked with the new keys")
	require.Equal(t, "mallory", got["1.0.3"].SignedBy)
	require.Equal(t, source.Imported, got["1.0.1"].Status, "a version imported stays, signed by the key that was trusted")
	require.Equal(t, "alice", got["1.0.1"].SignedBy)
	require.Equal(t, source.Refused, got["1.0.2"].Status, "a version read is not read again: it stays refused")
	_, err = b.cat.Get(b.ctx, "hello-web", "1.0.1")
	require.NoError(t, err)

	allow := false
	src, err = b.sources.Update(b.ctx, "acme", source.Change{SignedOnly: &allow})
	require.NoError(t, err)
	require.False(t, src.SignedOnly)
}

func TestAChangeOfASourceChecksEveryField(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{}, true)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	alice := source.Key{Name: "alice", PEM: string(pairs[0].Public)}
	_, err = b.sources.Add(b.ctx, source.NewSource{Name: "acme", URL: b.reg.Repo.String(), SignedOnly: true, Keys: []source.Key{alice}}, "admin")
	require.NoError(t, err)
	signed := true
	for _, tt := range []struct {
		change source.Change
		field  string
	}{
		{source.Change{RemoveKeys: []string{"bob"}}, "remove_keys"},
		{source.Change{AddKeys: []source.Key{alice}}, "keys"},
		{source.Change{AddKeys: []source.Key{{Name: "bob", PEM: "not a key"}}}, "keys"},
		{source.Change{RemoveKeys: []string{"alice"}}, "signed_only"},
		{source.Change{RemoveKeys: []string{"alice"}, SignedOnly: &signed}, "signed_only"},
	} {
		_, err := b.sources.Update(b.ctx, "acme", tt.change)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), tt.field)
		require.Contains(t, styrmin.ErrorFields(err), tt.field)
	}
	src, err := b.sources.Get(b.ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, []source.Key{alice}, src.Keys, "a refused change changes nothing")

	src, err = b.sources.Update(b.ctx, "acme", source.Change{RemoveKeys: []string{"alice"}, AddKeys: []source.Key{{Name: "alice", PEM: alice.PEM}}})
	require.NoError(t, err, "a key is replaced by removing and adding it in one change")
	require.Equal(t, []source.Key{alice}, src.Keys)
	_, err = b.sources.Update(b.ctx, "nope", source.Change{})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}
