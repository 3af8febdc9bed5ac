// Package publicnet tells public IP addresses from those that outbound
// requests an admin did not aim there must not reach (loopback, private,
// link-local, ...): chart downloads and webhook redirects check every
// address they connect to with it.
package publicnet

import "net/netip"

// nonPublicRanges are the non-public ranges netip has no method for, with what they are.
var nonPublicRanges = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "a \"this network\" address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
}

// NonPublicKind says what kind of address addr is when it is not public
// (loopback, private, link-local, unspecified, multicast, CGNAT, reserved
// ...); "" for a public address. An IPv4 address written as IPv6
// (::ffff:a.b.c.d) is judged as the IPv4 address.
func NonPublicKind(addr netip.Addr) string {
	addr = addr.Unmap()
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsPrivate():
		return "a private address"
	case addr.IsLinkLocalUnicast():
		return "a link-local address"
	case addr.IsUnspecified():
		return "an unspecified address"
	case addr.IsMulticast():
		return "a multicast address"
	}
	for _, r := range nonPublicRanges {
		if r.prefix.Contains(addr) {
			return r.kind
		}
	}
	return ""
}
