package controlplane

import (
	"net"
	"testing"
)

func TestPlanNodeNetworkAvoidsTheHostsNetworks(t *testing.T) {
	n, err := planNodeNetwork("/some/checkout/.cluster")
	if err != nil {
		t.Fatal(err)
	}
	taken, err := hostNetworks()
	if err != nil {
		t.Fatal(err)
	}
	if overlapsAny(n.Subnet, taken) {
		t.Fatalf("pod range %s overlaps a host network of %v", n.Subnet, taken)
	}
	if !n.Subnet.Contains(n.Gateway) {
		t.Fatalf("gateway %s outside %s", n.Gateway, n.Subnet)
	}
	if len(n.Bridge) > 15 {
		t.Fatalf("bridge name %q is longer than Linux allows", n.Bridge)
	}
	other, _ := nodeNames("/another/checkout/.cluster")
	if other == n.Bridge {
		t.Fatalf("two cluster folders share the bridge %s", other)
	}
}

func TestOverlapsAny(t *testing.T) {
	_, subnet, _ := net.ParseCIDR("10.123.7.0/24")
	cases := []struct {
		taken string
		want  bool
	}{
		{"10.123.7.5/32", true}, // an address inside
		{"10.0.0.0/8", true},    // a route around it
		{"10.123.8.0/24", false},
		{"192.0.2.0/24", false},
	}
	for _, c := range cases {
		_, taken, _ := net.ParseCIDR(c.taken)
		if got := overlapsAny(subnet, []*net.IPNet{taken}); got != c.want {
			t.Errorf("overlapsAny(%s, %s) = %v, want %v", subnet, c.taken, got, c.want)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := unescapeMount(`/a\040b/c`); got != "/a b/c" {
		t.Fatalf("got %q", got)
	}
}

func TestSetFlagsReplacesAndAppends(t *testing.T) {
	got := setFlags([]string{"--a=1", "--authorization-mode=RBAC"}, []string{"--authorization-mode=Node,RBAC", "--b=2"})
	want := []string{"--a=1", "--authorization-mode=Node,RBAC", "--b=2"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
