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
	"strings"
)

// nodeNetwork is the real node's network: one Linux bridge with the node's
// address (the pods' gateway) and a /24 pod range that collides with nothing
// on the host. Its names derive from the cluster folder, so two clusters on
// one host never share a bridge, and pods get no default route: their traffic
// reaches the node and other pods, never the host's uplink.
type nodeNetwork struct {
	Bridge  string     // Linux bridge, e.g. styr1a2b3c4d
	Name    string     // CNI network name
	Subnet  *net.IPNet // pod range
	Gateway net.IP     // the bridge's address: the node IP
}

// nodeNames returns the bridge and CNI network names of the cluster in dir.
func nodeNames(dir string) (bridge, network string) {
	sum := sha256.Sum256([]byte(dir))
	id := hex.EncodeToString(sum[:4])
	return "styr" + id, "styrmin-" + id
}

// planNodeNetwork picks the pod range 10.123.N.0/24, N from the cluster
// folder's hash, moving on while it overlaps an address or route of the host.
func planNodeNetwork(dir string) (nodeNetwork, error) {
	bridge, name := nodeNames(dir)
	taken, err := hostNetworks()
	if err != nil {
		return nodeNetwork{}, err
	}
	sum := sha256.Sum256([]byte(dir))
	first := int(binary.BigEndian.Uint16(sum[4:6]))
	for i := range 256 {
		third := byte((first + i) % 256)
		subnet := &net.IPNet{IP: net.IPv4(10, 123, third, 0).To4(), Mask: net.CIDRMask(24, 32)}
		if !overlapsAny(subnet, taken) {
			return nodeNetwork{Bridge: bridge, Name: name, Subnet: subnet, Gateway: net.IPv4(10, 123, third, 1).To4()}, nil
		}
	}
	return nodeNetwork{}, fmt.Errorf("real node: every /24 of 10.123.0.0/16 overlaps an address or route of this host")
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

// create makes the bridge with the gateway address and brings it up.
func (n nodeNetwork) create() error {
	prefix, _ := n.Subnet.Mask.Size()
	steps := [][]string{
		{"link", "add", n.Bridge, "type", "bridge"},
		{"addr", "add", fmt.Sprintf("%s/%d", n.Gateway, prefix), "dev", n.Bridge},
		{"link", "set", n.Bridge, "up"},
	}
	for _, args := range steps {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("real node: ip %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// deleteBridge removes the bridge named name (and so the pods' veth ends on
// it) when it exists.
func deleteBridge(name string) error {
	if _, err := net.InterfaceByName(name); err != nil {
		return nil //nolint:nilerr // no such link: nothing to remove
	}
	if out, err := exec.Command("ip", "link", "del", name).CombinedOutput(); err != nil {
		return fmt.Errorf("real node: ip link del %s: %w: %s", name, err, out)
	}
	return nil
}
