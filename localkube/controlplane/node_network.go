package controlplane

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// nodeNetwork is the real node's network, all in a network namespace of its
// own so that its iptables rules, routes and sysctls never meet the host's or
// another cluster's:
//
//	host: Host/30 on the veth HostLink (forwarding off), routes to Subnet and Services via Peer
//	netns Namespace: Peer/30 on the veth end NodeLink, the bridge Bridge with Gateway/24 (the
//	node IP) and the fixed hardware address BridgeMAC, Services routed to the bridge,
//	ip_forward and br_netfilter on, no default route; containerd, the kubelet, kube-proxy and DNS
//	pods on Bridge: routes to Subnet, Services and Host only
//
// Its names derive from the cluster folder, and its ranges (10.122.N.0/30,
// 10.123.N.0/24 and 10.124.N.0/24) collide with nothing on the host.
type nodeNetwork struct {
	Namespace string           // network namespace, e.g. styr1a2b3c4d
	HostLink  string           // the host's end of the veth pair (same name as the namespace)
	NodeLink  string           // the namespace's end of the veth pair
	Bridge    string           // Linux bridge in the namespace
	BridgeMAC net.HardwareAddr // the bridge's, set so that it never follows its ports' (bridgeMAC)
	Name      string           // CNI network name
	Subnet    *net.IPNet       // pod range
	Gateway   net.IP           // the bridge's address: the node IP
	Services  *net.IPNet       // Service ClusterIP range
	Link      *net.IPNet       // the veth pair's /30
	Host      net.IP           // the host's address on the veth: the API server's
	Peer      net.IP           // the namespace's address on the veth
}

// nodeBridge is the pods' bridge, inside the node's namespace.
const nodeBridge = "cni0"

// nodeNames returns the network namespace (also the host's veth end) and CNI
// network names of the cluster in dir.
func nodeNames(dir string) (namespace, network string) {
	sum := sha256.Sum256([]byte(dir))
	id := hex.EncodeToString(sum[:4])
	return "styr" + id, "styrmin-" + id
}

// bridgeMAC is the hardware address of the cluster in dir's bridge: locally
// administered, from the folder's hash. A bridge without an address set takes
// the lowest of its ports', so it would change as pods come and go; pods
// would then send to the gateway (the node IP, their DNS server) at a stale
// address until their ARP entries expire, and lose their DNS queries for
// seconds at a time.
func bridgeMAC(dir string) net.HardwareAddr {
	sum := sha256.Sum256([]byte(dir))
	return net.HardwareAddr{0x02, sum[0], sum[1], sum[2], sum[3], 0x01}
}

// planNodeNetwork picks N for the ranges 10.122.N.0/30, 10.123.N.0/24 and
// 10.124.N.0/24 from the cluster folder's hash, moving on while one of them
// overlaps an address or route of the host (another cluster's included).
func planNodeNetwork(dir string) (nodeNetwork, error) {
	taken, err := hostNetworks()
	if err != nil {
		return nodeNetwork{}, err
	}
	sum := sha256.Sum256([]byte(dir))
	first := int(binary.BigEndian.Uint16(sum[4:6]))
	for i := range 256 {
		n := nodeNetworkAt(dir, byte((first+i)%256))
		if !overlapsAny(n.Subnet, taken) && !overlapsAny(n.Services, taken) && !overlapsAny(n.Link, taken) {
			return n, nil
		}
	}
	return nodeNetwork{}, fmt.Errorf("real node: every N of 10.122-124.N.0 overlaps an address or route of this host")
}

// nodeNetworkAt is the cluster in dir's network with the ranges numbered n.
func nodeNetworkAt(dir string, n byte) nodeNetwork {
	namespace, name := nodeNames(dir)
	return nodeNetwork{
		Namespace: namespace,
		HostLink:  namespace,
		NodeLink:  "styn" + strings.TrimPrefix(namespace, "styr"),
		Bridge:    nodeBridge,
		BridgeMAC: bridgeMAC(dir),
		Name:      name,
		Subnet:    &net.IPNet{IP: net.IPv4(10, 123, n, 0).To4(), Mask: net.CIDRMask(24, 32)},
		Gateway:   net.IPv4(10, 123, n, 1).To4(),
		Services:  &net.IPNet{IP: net.IPv4(10, 124, n, 0).To4(), Mask: net.CIDRMask(24, 32)},
		Link:      &net.IPNet{IP: net.IPv4(10, 122, n, 0).To4(), Mask: net.CIDRMask(30, 32)},
		Host:      net.IPv4(10, 122, n, 1).To4(),
		Peer:      net.IPv4(10, 122, n, 2).To4(),
	}
}

// APIServiceIP is the ClusterIP of the `kubernetes` Service: the first
// address of the Service range.
func (n nodeNetwork) APIServiceIP() net.IP {
	ip := n.Services.IP.To4()
	return net.IPv4(ip[0], ip[1], ip[2], ip[3]+1).To4()
}

func overlapsAny(subnet *net.IPNet, taken []*net.IPNet) bool {
	for _, t := range taken {
		if t.Contains(subnet.IP) || subnet.Contains(t.IP) {
			return true
		}
	}
	return false
}

// hostNetworks returns the host's IPv4 interface networks and routes, except
// default routes.
func hostNetworks() ([]*net.IPNet, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("real node: host addresses: %w", err)
	}
	var out []*net.IPNet
	for _, a := range addrs {
		if ipnet, ok := a.(*net.IPNet); ok && ipnet.IP.To4() != nil {
			out = append(out, ipnet)
		}
	}
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return nil, fmt.Errorf("real node: host routes: %w", err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 8 || fields[0] == "Iface" {
			continue
		}
		dest, mask := hexIPv4(fields[1]), hexIPv4(fields[7])
		if dest == nil || mask == nil || dest.IsUnspecified() && mask.IsUnspecified() {
			continue
		}
		out = append(out, &net.IPNet{IP: dest, Mask: net.IPMask(mask)})
	}
	return out, scanner.Err()
}

// hexIPv4 decodes an address of /proc/net/route (little-endian hex).
func hexIPv4(s string) net.IP {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 4 {
		return nil
	}
	return net.IPv4(b[3], b[2], b[1], b[0]).To4()
}

// create makes the namespace, the veth pair between it and the host, the
// bridge inside it, and the host's routes to the pod and Service ranges.
func (n nodeNetwork) create() error {
	prefix, _ := n.Subnet.Mask.Size()
	linkPrefix, _ := n.Link.Mask.Size()
	steps := [][]string{
		{"netns", "add", n.Namespace},
		{"link", "add", n.HostLink, "type", "veth", "peer", "name", n.NodeLink, "netns", n.Namespace},
		{"addr", "add", fmt.Sprintf("%s/%d", n.Host, linkPrefix), "dev", n.HostLink},
		{"link", "set", n.HostLink, "up"},
		{"-n", n.Namespace, "link", "set", "lo", "up"},
		{"-n", n.Namespace, "addr", "add", fmt.Sprintf("%s/%d", n.Peer, linkPrefix), "dev", n.NodeLink},
		{"-n", n.Namespace, "link", "set", n.NodeLink, "up"},
		{"-n", n.Namespace, "link", "add", n.Bridge, "address", n.BridgeMAC.String(), "type", "bridge"},
		{"-n", n.Namespace, "addr", "add", fmt.Sprintf("%s/%d", n.Gateway, prefix), "dev", n.Bridge},
		{"-n", n.Namespace, "link", "set", n.Bridge, "up"},
		// A route for the Services' range, so that the node's own processes
		// (and host-network pods) can connect to a ClusterIP: kube-proxy's
		// rules rewrite the destination after the route lookup.
		{"-n", n.Namespace, "route", "add", n.Services.String(), "dev", n.Bridge},
		{"route", "add", n.Subnet.String(), "via", n.Peer.String(), "dev", n.HostLink},
		{"route", "add", n.Services.String(), "via", n.Peer.String(), "dev", n.HostLink},
	}
	for _, args := range steps {
		if err := runIP(args...); err != nil {
			return err
		}
	}
	// The host forwards nothing that comes from the node; the node routes
	// between its pods, the Services and the host.
	if err := os.WriteFile(filepath.Join("/proc/sys/net/ipv4/conf", n.HostLink, "forwarding"), []byte("0"), 0o644); err != nil {
		return fmt.Errorf("real node: turn forwarding off on %s: %w", n.HostLink, err)
	}
	return inNamespace(n.Namespace, "sh", "-c", nodeSysctls)
}

// nodeSysctls, run in the node's namespace (these sysctls are per network
// namespace), turn on routing between the pods, the Services and the host,
// and let a Service's reply between two pods of the bridge pass through
// kube-proxy's rules to be un-NATed (module br_netfilter).
const nodeSysctls = "echo 1 > /proc/sys/net/ipv4/ip_forward && echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables"

func runIP(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("real node: ip %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// inNamespace runs a command in the network namespace (only: the mounts stay the host's).
func inNamespace(namespace string, args ...string) error {
	out, err := exec.Command("nsenter", append([]string{"--net=" + namespacePath(namespace), "--"}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("real node: in %s: %s: %w: %s", namespace, strings.Join(args, " "), err, out)
	}
	return nil
}

// namespacePath is where `ip netns` keeps the namespace's handle.
func namespacePath(namespace string) string { return filepath.Join("/run/netns", namespace) }

// deleteNodeNetwork removes the namespace (and with it everything inside: the
// bridge, the veth pair, iptables rules, routes) and the host's veth end,
// with the host's routes through it, when they exist.
func deleteNodeNetwork(namespace string) error {
	if _, err := os.Stat(namespacePath(namespace)); err == nil {
		if err := runIP("netns", "delete", namespace); err != nil {
			return err
		}
	}
	// A process left in the namespace keeps it, and the veth pair, alive.
	if _, err := net.InterfaceByName(namespace); err != nil {
		return nil //nolint:nilerr // no such link: nothing to remove
	}
	err := runIP("link", "del", namespace)
	if _, gone := net.InterfaceByName(namespace); err != nil && gone != nil {
		// The kernel destroys a deleted namespace, and the veth end left on
		// the host with it, in the background: the link was there when
		// looked for and gone when deleted, which is what was wanted.
		return nil
	}
	return err
}
