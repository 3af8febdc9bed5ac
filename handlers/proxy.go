package handlers

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// clientOf returns how the server tells a request's client address and
// scheme. With no trusted proxies they are the connection's own. Otherwise
// X-Forwarded-For is read from the right, skipping trusted hops: the first
// address not in trusted is the client's (a client cannot place itself
// further right than the proxy that appended its address), and
// X-Forwarded-Proto counts only when the peer itself is a trusted proxy.
func clientOf(trusted []*net.IPNet) (echo.IPExtractor, func(*http.Request) string) {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect(), connScheme
	}
	// echo trusts loopback, link-local and private networks unless told not to.
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	scheme := func(r *http.Request) string {
		if peerIn(r, trusted) {
			switch p := strings.ToLower(strings.TrimSpace(r.Header.Get(echo.HeaderXForwardedProto))); p {
			case "http", "https":
				return p
			}
		}
		return connScheme(r)
	}
	return echo.ExtractIPFromXFFHeader(opts...), scheme
}

// connScheme is the scheme of the request's own connection.
func connScheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// peerIn says whether the request's TCP peer is in one of nets.
func peerIn(r *http.Request, nets []*net.IPNet) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies parses a comma-separated list of CIDRs (a single
// address counts as its own /32 or /128); empty gives none.
func ParseTrustedProxies(list string) ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			ip := net.ParseIP(item)
			if ip == nil {
				return nil, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR such as 10.0.0.0/8", item)
			}
			bits := 128
			if ip.To4() != nil {
				bits = 32
			}
			item = fmt.Sprintf("%s/%d", item, bits)
		}
		_, n, err := net.ParseCIDR(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is not a CIDR such as 10.0.0.0/8 or fd00::/8", item)
		}
		nets = append(nets, n)
	}
	return nets, nil
}
