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
		// NAT64's well-known prefix (64:ff9b::/96) carries an IPv4 address in
		// its last 32 bits, which a NAT64 gateway dials: judged as that address.
		"64:ff9b::7f00:1":     "a loopback address",
		"64:ff9b::127.0.0.1":  "a loopback address",
		"64:ff9b::a9fe:a9fe":  "a link-local address",
		"64:ff9b::a01:203":    "a private address",
		"64:ff9b::6440:1":     "a shared (carrier-grade NAT) address",
		"64:ff9b::5db8:d70e":  "",
		"64:ff9b:1::1":        "a local-use NAT64 address",
		"64:ff9b:1::7f00:1":   "a local-use NAT64 address",
		"64:ff9b:1:ffff::1":   "a local-use NAT64 address",
		"64:ff9b:0:0:1::7f00": "", // outside the /96 and the /48: an ordinary global address
		// 6to4 (2002::/16) carries the IPv4 address of its relay in bits 16-48.
		"2002:7f00:1::1":    "a loopback address",
		"2002:a9fe:a9fe::1": "a link-local address",
		"2002:c0a8:1::":     "a private address",
		"2002:0:0::1":       "an unspecified address",
		"2002:5db8:d70e::1": "",
		// Teredo (2001::/32) carries its client's IPv4 address, inverted, in its last 32 bits.
		"2001:0:4136:e378:8000:63bf:80ff:fffe": "a loopback address",
		"2001:0:4136:e378:8000:63bf:f5ff:fefc": "a private address",
		"2001:0:4136:e378:8000:63bf:a247:28f1": "",
		// IPv4-compatible addresses (::a.b.c.d) are deprecated: none is public.
		"::7f00:1":    "a deprecated IPv4-compatible address",
		"::5db8:d70e": "a deprecated IPv4-compatible address",
	} {
		require.Equal(t, kind, publicnet.NonPublicKind(netip.MustParseAddr(addr)), addr)
	}
}
