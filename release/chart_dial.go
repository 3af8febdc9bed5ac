package release

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"

	"github.com/styrmin/styrmin/publicnet"
)

// AddressRefused is why a chart download did not connect to an address: the
// address is not public (loopback, private, link-local, ...) and its host is
// not one of the allowed ChartHosts.
type AddressRefused struct {
	// Host is the host:port the download asked for.
	Host string
	// Address is the IP address the host resolved to.
	Address netip.Addr
	// Kind says what the address is, such as "a private address".
	Kind string
}

// Error says which host resolved to which kind of address.
func (e *AddressRefused) Error() string {
	return fmt.Sprintf("%s resolves to %s (%s), which chart downloads may not reach", e.Host, e.Kind, e.Address)
}

// NotHTTPS is why a chart download did not follow a URL: charts come over https only.
type NotHTTPS struct {
	// URL is the address that was refused, without any password.
	URL string
}

// Error names the refused URL.
func (e *NotHTTPS) Error() string {
	return e.URL + " is not an https:// URL"
}

// guardedDial connects to addr as a net.Dialer does, but when addr's host is
// not allowed it refuses every resolved IP address that is not public before
// connecting: the check is made on the address connected to, so a name that
// resolves to another address at each lookup (DNS rebinding) gains nothing.
func guardedDial(allowed ChartHosts) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{}
		if !allowed.allows(addr) {
			d.Control = refuseNonPublic(addr)
		}
		return d.DialContext(ctx, network, addr)
	}
}

// refuseNonPublic is a net.Dialer Control function that refuses, before the
// connection is made, an address that is not public; host names it in errors.
func refuseNonPublic(host string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("chart download: dial %s: %w", address, err)
		}
		if kind := publicnet.NonPublicKind(ap.Addr()); kind != "" {
			return &AddressRefused{Host: host, Address: ap.Addr().Unmap(), Kind: kind}
		}
		return nil
	}
}

// httpsOnly is a transport that sends https requests only, so that neither
// a repository index nor a redirect leads a download to plain http.
type httpsOnly struct{ base http.RoundTripper }

// RoundTrip refuses a request whose URL is not https.
func (t httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return nil, &NotHTTPS{URL: req.URL.Redacted()}
	}
	return t.base.RoundTrip(req)
}
