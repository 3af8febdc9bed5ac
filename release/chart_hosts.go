package release

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	styrmin "github.com/styrmin/styrmin"
)

// ChartHosts are the hosts an admin allows charts to come from although
// they resolve to addresses a chart download may not otherwise reach
// (loopback, private, link-local, ...): each a host name or IP address, which
// allows every port, or host:port, which allows that port only. Entries are
// normalized: lower case, no trailing dot, IPv6 addresses in brackets with a port.
type ChartHosts []string

// ParseChartHosts checks and normalizes the entries an admin gives, leaving
// out blank ones and duplicates. An entry that is not a host or host:port is
// an EINVALID error on the field "hosts" that names it.
func ParseChartHosts(entries []string) (ChartHosts, error) {
	hosts := ChartHosts{}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		h, ok := normalizeChartHost(e)
		if !ok {
			return nil, &styrmin.Error{Code: styrmin.EINVALID,
				Message: "Some chart hosts are not valid.",
				Fields:  map[string]string{"hosts": e + " is not a host name, an IP address or host:port; write one such as charts.internal or charts.internal:8443"}}
		}
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

// normalizeChartHost gives the normal form of one entry, and whether it is one.
func normalizeChartHost(e string) (string, bool) {
	e = strings.ToLower(e)
	if addr, err := netip.ParseAddr(e); err == nil {
		return addr.String(), true
	}
	host, port, err := net.SplitHostPort(e)
	if err != nil {
		return normalHost(e)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", false
	}
	host, ok := normalHost(host)
	return net.JoinHostPort(host, port), ok
}

// normalHost gives the normal form of a host name or IP address, and whether it is one.
func normalHost(h string) (string, bool) {
	if addr, err := netip.ParseAddr(h); err == nil {
		return addr.String(), true
	}
	h = strings.TrimSuffix(h, ".")
	return h, len(validation.IsDNS1123Subdomain(h)) == 0
}

// allows reports whether the host:port addr, as a URL names it, is allowed.
func (h ChartHosts) allows(addr string) bool {
	host, port, err := net.SplitHostPort(strings.ToLower(addr))
	if err != nil {
		return false
	}
	host, ok := normalHost(host)
	return ok && (slices.Contains(h, host) || slices.Contains(h, net.JoinHostPort(host, port)))
}
