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

// IPv6 ranges that carry an IPv4 address that a gateway, a relay or the
// host's own stack may send the packets to.
var (
	// nat64 is NAT64's well-known prefix (RFC 6052): the IPv4 address is the
	// last 32 bits.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// sixToFour is 6to4 (RFC 3056): the IPv4 address is bits 16 to 48.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// teredo is Teredo (RFC 4380): the client's IPv4 address is the last 32
	// bits, inverted.
	teredo = netip.MustParsePrefix("2001::/32")
	// ipv4Compatible is the deprecated IPv4-compatible form, ::a.b.c.d (RFC
	// 4291); it holds :: and ::1 too.
	ipv4Compatible = netip.MustParsePrefix("::/96")
)

// NonPublicKind says what kind of address addr is when it is not public
// (loopback, private, link-local, unspecified, multicast, CGNAT, reserved
// ...); "" for a public address. An IPv6 address that carries an IPv4 address
// (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4, Teredo) is
// judged as that IPv4 address; a deprecated IPv4-compatible one (::a.b.c.d)
// is never public.
func NonPublicKind(addr netip.Addr) string {
	addr = addr.Unmap()
	if v4, ok := embeddedIPv4(addr); ok {
		addr = v4
	}
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
	case ipv4Compatible.Contains(addr):
		return "a deprecated IPv4-compatible address"
	}
	for _, r := range nonPublicRanges {
		if r.prefix.Contains(addr) {
			return r.kind
		}
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address that addr, an IPv6 address of NAT64's
// well-known prefix, 6to4 or Teredo, carries; false for any other address.
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	b := addr.As16()
	switch {
	case nat64.Contains(addr):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case teredo.Contains(addr):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}
