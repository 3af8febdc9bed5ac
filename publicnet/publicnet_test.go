package publicnet_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/publicnet"
)

func TestNonPublicKind(t *testing.T) {
	t.Parallel()
	for addr, kind := range map[string]string{
		"93.184.215.14":        "",
		"2606:4700::6810:84e5": "",
		"127.0.0.1":            "a loopback address",
		"::1":                  "a loopback address",
		"::ffff:127.0.0.1":     "a loopback address",
		"10.1.2.3":             "a private address",
		"192.168.0.1":          "a private address",
		"fd00::1":              "a private address",
		"169.254.169.254":      "a link-local address",
		"fe80::1":              "a link-local address",
		"0.0.0.0":              "an unspecified address",
		"224.0.0.1":            "a multicast address",
		"100.64.0.1":           "a shared (carrier-grade NAT) address",
		"198.18.0.1":           "a benchmarking address",
		"240.0.0.1":            "a reserved address",
	} {
		require.Equal(t, kind, publicnet.NonPublicKind(netip.MustParseAddr(addr)), addr)
	}
}
