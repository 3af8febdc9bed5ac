package controlplane

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/localkube/ociimage"
)

// netprobeImage is the image of testdata/netprobe.
const netprobeImage = "styrmin.local/netprobe:1"

// TestRealNodeRoutesServicesAndAnswersDNS runs an HTTP server pod behind the
// Service web and a client pod that resolves web's cluster name and GETs it
// through the Service, and reaches the API server through the `kubernetes`
// Service (by its cluster name, checking its certificate); the host GETs the Service IP and the pod IP; cluster
// DNS, asked from the host, answers web's name and refuses one outside the
// cluster; and, without sending anything out, the pod's routes and the NAT
// rules reach only the machine's own ranges; and the bridge keeps its
// hardware address whatever ports join it.
func TestRealNodeRoutesServicesAndAnswersDNS(t *testing.T) {
	layout := nodeCluster(t)
	core, server := runRealNodeCluster(t, layout)
	ctx := context.Background()
	importNetprobe(t, layout)

	serverPod := nodePod("server", netprobeImage, "serve")
	serverPod.Labels = map[string]string{"app": "web"}
	serverPod, err := core.CoreV1().Pods("default").Create(ctx, serverPod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	if svc, err = core.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	serverPod = waitPod(t, core, serverPod.Name, func(p *corev1.Pod) bool { return podReady(p) && p.Status.PodIP != "" })

	name := "web.default.svc." + ClusterDomain
	hostGet(t, "http://"+net.JoinHostPort(serverPod.Status.PodIP, "8080")+"/", "served by server")
	hostGet(t, "http://"+net.JoinHostPort(svc.Spec.ClusterIP, "80")+"/", "served by server")

	node, err := core.CoreV1().Nodes().Get(ctx, RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodeIP := nodeInternalIP(t, node)
	answer := askDNS(t, nodeIP, name)
	if answer.Rcode != dns.RcodeSuccess || len(answer.Answer) != 1 || answer.Answer[0].(*dns.A).A.String() != svc.Spec.ClusterIP {
		t.Fatalf("cluster DNS for %s: %v, want one A %s", name, answer, svc.Spec.ClusterIP)
	}
	if outside := askDNS(t, nodeIP, "example.com."); outside.Rcode == dns.RcodeSuccess || len(outside.Answer) > 0 {
		t.Fatalf("cluster DNS answered a name outside the cluster: %v", outside)
	}

	webURL, apiURL := "http://"+name+"/", "https://kubernetes.default.svc/livez"
	probe, err := core.CoreV1().Pods("default").Create(ctx, nodePod("probe", netprobeImage, "probe", name, webURL, apiURL), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	probe = waitPod(t, core, probe.Name, func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	})
	logs, err := core.CoreV1().Pods("default").GetLogs(probe.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(logs)), "\n")
	for _, want := range []string{fmt.Sprintf("lookup %s [%s] <nil>", name, svc.Spec.ClusterIP), "get " + webURL + " served by server", "get " + apiURL + " ok"} {
		if !slices.Contains(lines, want) {
			t.Errorf("the probe pod's output lacks %q:\n%s", want, logs)
		}
	}

	apiHost := serverHost(t, server)
	machine := []string{cidr24(nodeIP), cidr24(net.ParseIP(svc.Spec.ClusterIP)), apiHost + "/32"}
	requireOnlyMachineRoutes(t, lines, machine)
	namespace, _ := nodeNames(layout.Dir)
	requireNoWayOut(t, namespace, machine, apiHost)
	requireBridgeKeepsItsAddress(t, namespace)
}

// requireBridgeKeepsItsAddress attaches to the node's bridge a port with the
// lowest hardware address there is, which a bridge without an address of its
// own would take, and checks the bridge's did not change: pods keep reaching
// their gateway (the node IP, their DNS server) at the address they learnt.
func requireBridgeKeepsItsAddress(t *testing.T, namespace string) {
	t.Helper()
	before := linkAddress(t, namespace, nodeBridge)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", append([]string{"-n", namespace, "link"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip link %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	ip("add", "stytest0", "address", "00:00:00:00:00:01", "type", "veth", "peer", "name", "stytest1")
	defer ip("del", "stytest0")
	ip("set", "stytest0", "master", nodeBridge, "up")
	if after := linkAddress(t, namespace, nodeBridge); after != before {
		t.Errorf("the bridge's hardware address went from %s to %s when a port joined it", before, after)
	}
}

// linkAddress is the hardware address of the link name in namespace.
func linkAddress(t *testing.T, namespace, name string) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", namespace, "cat", filepath.Join("/sys/class/net", name, "address")).Output()
	if err != nil {
		t.Fatalf("hardware address of %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// runRealNodeCluster starts a cluster with a real node in layout, returns its
// admin client and API server URL once it is ready, and stops it at the
// test's end.
func runRealNodeCluster(t *testing.T, layout Layout) (kubernetes.Interface, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, layout, Options{RealNode: true}, t.Logf, func(ctx context.Context, kubeconfig string) error {
			ready <- kubeconfig
			<-ctx.Done()
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	var kubeconfig string
	select {
	case kubeconfig = <-ready:
	case err := <-done:
		t.Fatalf("cluster stopped before it was ready: %v", err)
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return core, config.Host
}

// importNetprobe builds testdata/netprobe as a static binary and imports it
// into the node as netprobeImage.
func importNetprobe(t *testing.T, layout Layout) {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "netprobe")
	build := exec.Command("go", "build", "-o", binary, "./testdata/netprobe")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build netprobe: %v\n%s", err, out)
	}
	if err := ImportImage(context.Background(), layout, ociimage.Image{Name: netprobeImage, Binary: binary, Path: "/netprobe"}); err != nil {
		t.Fatal(err)
	}
}

// nodePod is a pod of image with args, on the real node, never restarted.
func nodePod(name, image string, args ...string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			NodeSelector:  map[string]string{RealNodeLabel: RealNodeLabelValue},
			Containers:    []corev1.Container{{Name: "main", Image: image, Args: args, ImagePullPolicy: corev1.PullNever}},
		},
	}
}

// waitPod waits until the pod name in default satisfies done and returns it.
func waitPod(t *testing.T, core kubernetes.Interface, name string, done func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := core.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		pod = got
		return done(pod), nil
	})
	if err != nil {
		t.Fatalf("pod %s: %v (status %+v)", name, err, pod.Status)
	}
	return pod
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// hostGet GETs address from the host (retrying while the rules settle) and
// wants body.
func hostGet(t *testing.T, address, want string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	var got string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		resp, err := client.Get(address)
		if err != nil {
			got = err.Error()
			return false, nil
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		got = string(body)
		return err == nil && got == want, nil
	})
	if err != nil {
		t.Fatalf("GET %s from the host: %q, want %q", address, got, want)
	}
}

func nodeInternalIP(t *testing.T, node *corev1.Node) net.IP {
	t.Helper()
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return net.ParseIP(a.Address)
		}
	}
	t.Fatalf("node %s has no InternalIP: %v", node.Name, node.Status.Addresses)
	return nil
}

// askDNS asks the DNS server at server:53 for name's A record.
func askDNS(t *testing.T, server net.IP, name string) *dns.Msg {
	t.Helper()
	query := new(dns.Msg)
	query.SetQuestion(dns.Fqdn(name), dns.TypeA)
	answer, _, err := new(dns.Client).Exchange(query, net.JoinHostPort(server.String(), "53"))
	if err != nil {
		t.Fatalf("ask %s for %s: %v", server, name, err)
	}
	return answer
}

func serverHost(t *testing.T, server string) string {
	t.Helper()
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname()
}

func cidr24(ip net.IP) string {
	return (&net.IPNet{IP: ip.Mask(net.CIDRMask(24, 32)), Mask: net.CIDRMask(24, 32)}).String()
}

// requireOnlyMachineRoutes wants the pod's routes (netprobe's "route" lines)
// to be exactly the machine's ranges: no default route.
func requireOnlyMachineRoutes(t *testing.T, lines, machine []string) {
	t.Helper()
	var routes []string
	for _, line := range lines {
		if route, ok := strings.CutPrefix(line, "route "); ok {
			routes = append(routes, route)
		}
	}
	slices.Sort(routes)
	want := slices.Sorted(slices.Values(machine))
	if !slices.Equal(routes, want) {
		t.Errorf("the pod's routes are %v, want only the machine's ranges %v", routes, want)
	}
}

// requireNoWayOut checks that the node's namespace has no default route,
// that its NAT rules rewrite destinations only to the machine's ranges, and
// that the host has no NAT rule for the node's ranges.
func requireNoWayOut(t *testing.T, namespace string, machine []string, apiHost string) {
	t.Helper()
	routes, err := exec.Command("ip", "-n", namespace, "-4", "route").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(routes), "default") {
		t.Errorf("the node's namespace has a default route:\n%s", routes)
	}
	nat, err := exec.Command("ip", "netns", "exec", namespace, "iptables-save", "-t", "nat").Output()
	if err != nil {
		t.Fatal(err)
	}
	_, pods, _ := net.ParseCIDR(machine[0])
	dnat := 0
	for _, line := range strings.Split(string(nat), "\n") {
		_, target, found := strings.Cut(line, "--to-destination ")
		if !found {
			continue
		}
		dnat++
		host, _, err := net.SplitHostPort(strings.Fields(target)[0])
		if err != nil || !pods.Contains(net.ParseIP(host)) && host != apiHost {
			t.Errorf("a NAT rule of the node sends traffic off the machine's ranges: %s", line)
		}
	}
	if dnat == 0 {
		t.Errorf("kube-proxy wrote no Service rule in the node's namespace:\n%s", nat)
	}
	hostNAT, err := exec.Command("iptables-save", "-t", "nat").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range machine[:2] {
		if strings.Contains(string(hostNAT), r) {
			t.Errorf("the host has a NAT rule for the node's range %s", r)
		}
	}
}
