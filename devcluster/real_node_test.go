package devcluster_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/styrmin/styrmin/devcluster"
	"github.com/styrmin/styrmin/kube"
)

// The real node's name and label, as localkube/controlplane registers them
// (RealNodeName, RealNodeLabel; another module).
const (
	realNodeName  = "styrmin-node"
	realNodeLabel = "styrmin.io/node"
)

// helloSource is the test image's program: it prints a greeting, its IPv4
// addresses and its IPv4 routes (from its network namespace's
// /proc/net/route), then exits.
const helloSource = `package main

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
)

func main() {
	fmt.Println("hello from a real pod")
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
			fmt.Println("addr", ip.IP)
		}
	}
	routes, _ := os.ReadFile("/proc/net/route")
	for _, line := range strings.Split(string(routes), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		d, _ := hex.DecodeString(f[1])
		m, _ := hex.DecodeString(f[7])
		ones, _ := net.IPv4Mask(m[3], m[2], m[1], m[0]).Size()
		fmt.Printf("route %s/%d\n", net.IPv4(d[3], d[2], d[1], d[0]), ones)
	}
}
`

// realNodeSetup skips when the simulated node was asked for, then gives the
// test a namespace on a cluster whose real node is Ready.
func realNodeSetup(t *testing.T) (*kube.Client, string) {
	t.Helper()
	if os.Getenv(devcluster.NodeEnv) == devcluster.NodeSimulated {
		t.Skipf("%s=%s: the cluster runs only the simulated node", devcluster.NodeEnv, devcluster.NodeSimulated)
	}
	client, namespace := setup(t)
	node, err := client.Clientset.CoreV1().Nodes().Get(context.Background(), realNodeName, metav1.GetOptions{})
	require.NoError(t, err, "the local cluster has no real node")
	require.Equal(t, "real", node.Labels[realNodeLabel])
	return client, namespace
}

// serverSource is an image's program that answers HTTP on port 8080.
const serverSource = `package main

import (
	"fmt"
	"net/http"
)

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "served from a real pod") })
	panic(http.ListenAndServe(":8080", nil))
}
`

// importProgram builds the Go program source as a static binary and imports
// it into the real node as name, with `localkube image`.
func importProgram(t *testing.T, name, source string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644))
	build := exec.Command("go", "build", "-o", "hello", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-buildvcs=false")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	root, err := devcluster.FindRoot(".")
	require.NoError(t, err)
	cluster, err := devcluster.New(root, io.Discard)
	require.NoError(t, err)
	imp := exec.Command(filepath.Join(cluster.BinDir(), "localkube"), "image", "-dir", cluster.Dir(),
		"-name", name, "-binary", filepath.Join(dir, "hello"), "-path", "/hello")
	out, err = imp.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// realPod is a pod for the real node: it selects the node and tolerates its taint.
// startProgramPod builds source into an image of its own, imports it and
// creates the pod name that runs it on the real node.
func startProgramPod(t *testing.T, pods typedcorev1.PodInterface, name, source string) {
	t.Helper()
	image := fmt.Sprintf("styrmin.local/%s-%s:1", name, rand.String(6))
	importProgram(t, image, source)
	_, err := pods.Create(context.Background(), realPod(name, image, corev1.PullNever), metav1.CreateOptions{})
	require.NoError(t, err)
}

func realPod(name, image string, pull corev1.PullPolicy) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			NodeSelector:  map[string]string{realNodeLabel: "real"},
			Containers:    []corev1.Container{{Name: "main", Image: image, ImagePullPolicy: pull}},
		},
	}
}

func TestRealNodeRunsPodOfImageBuiltHere(t *testing.T) {
	t.Parallel()
	client, namespace := realNodeSetup(t)
	pods := client.Clientset.CoreV1().Pods(namespace)
	startProgramPod(t, pods, "hello", helloSource)

	var pod *corev1.Pod
	eventually(t, "pod hello to complete", func(ctx context.Context) (bool, error) {
		var err error
		pod, err = pods.Get(ctx, "hello", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed, nil
	})
	require.Equal(t, corev1.PodSucceeded, pod.Status.Phase, "status: %+v", pod.Status)
	require.Equal(t, realNodeName, pod.Spec.NodeName)
	require.NotNil(t, net.ParseIP(pod.Status.PodIP), "pod IP %q", pod.Status.PodIP)

	ctx := context.Background()
	logs, err := pods.GetLogs("hello", &corev1.PodLogOptions{}).DoRaw(ctx)
	require.NoError(t, err)
	require.Contains(t, string(logs), "hello from a real pod")
	lines := strings.Split(strings.TrimSpace(string(logs)), "\n")
	// The program saw the pod IP on its own interface: a real network namespace.
	require.Contains(t, lines, "addr "+pod.Status.PodIP)
	requireTrafficStaysOnTheMachine(t, lines, net.ParseIP(pod.Status.PodIP))
}

// machineRanges hold the real node's ranges, as localkube/controlplane's
// planNodeNetwork picks them (another module): the veth to the host
// (10.122.N.0/30), the pods (10.123.N.0/24) and the Services (10.124.N.0/24).
var machineRanges = []string{"10.122.0.0/16", "10.123.0.0/16", "10.124.0.0/16"}

// requireTrafficStaysOnTheMachine checks, without sending anything, that the
// pod's routes (printed by helloSource) are its own /24 and others inside the
// node's ranges only (no default route), and that no NAT rule of the host
// rewrites traffic from that range.
func requireTrafficStaysOnTheMachine(t *testing.T, lines []string, podIP net.IP) {
	t.Helper()
	podNet := &net.IPNet{IP: podIP.Mask(net.CIDRMask(24, 32)), Mask: net.CIDRMask(24, 32)}
	var routes []string
	for _, line := range lines {
		if route, ok := strings.CutPrefix(line, "route "); ok {
			routes = append(routes, route)
		}
	}
	require.Contains(t, routes, podNet.String(), "the pod's routes")
	for _, route := range routes {
		_, dst, err := net.ParseCIDR(route)
		require.NoError(t, err)
		ones, _ := dst.Mask.Size()
		inside := false
		for _, r := range machineRanges {
			_, machine, _ := net.ParseCIDR(r)
			inside = inside || machine.Contains(dst.IP) && ones >= 16
		}
		require.True(t, inside, "the pod has a route %s outside the node's ranges %v", route, machineRanges)
	}
	nat, err := exec.Command("iptables-save", "-t", "nat").Output()
	require.NoError(t, err)
	require.NotContains(t, string(nat), podNet.String(), "a NAT rule for the pod range")
}

func TestRealNodeRefusesImageNotLoaded(t *testing.T) {
	t.Parallel()
	client, namespace := realNodeSetup(t)
	image := fmt.Sprintf("styrmin.local/missing-%s:1", rand.String(6))
	cases := []struct {
		name, reason, message string
		pull                  corev1.PullPolicy
	}{
		// What pods on the real node use: the kubelet refuses to pull at all.
		{"never", "ErrImageNeverPull", "is not present with pull policy of Never", corev1.PullNever},
		// A pod that would pull: containerd sends every registry to a closed
		// loopback port, so the pull fails on the machine.
		{"if-not-present", "", "127.0.0.1:9", corev1.PullIfNotPresent},
	}
	ctx := context.Background()
	pods := client.Clientset.CoreV1().Pods(namespace)
	for _, c := range cases {
		_, err := pods.Create(ctx, realPod(c.name, image, c.pull), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	for _, c := range cases {
		var waiting *corev1.ContainerStateWaiting
		eventually(t, "pod "+c.name+" to fail its image", func(ctx context.Context) (bool, error) {
			pod, err := pods.Get(ctx, c.name, metav1.GetOptions{})
			if err != nil || len(pod.Status.ContainerStatuses) == 0 {
				return false, err
			}
			waiting = pod.Status.ContainerStatuses[0].State.Waiting
			return waiting != nil && strings.Contains(waiting.Message, c.message), nil
		})
		if c.reason != "" {
			require.Equal(t, c.reason, waiting.Reason)
		}
		require.Contains(t, waiting.Message, image)
	}
}

func TestRealNodePodAnswersTheHost(t *testing.T) {
	t.Parallel()
	client, namespace := realNodeSetup(t)
	pods := client.Clientset.CoreV1().Pods(namespace)
	startProgramPod(t, pods, "server", serverSource)
	var body string
	eventually(t, "the pod's server to answer the host", func(ctx context.Context) (bool, error) {
		pod, err := pods.Get(ctx, "server", metav1.GetOptions{})
		if err != nil || pod.Status.PodIP == "" {
			return false, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(pod.Status.PodIP, "8080")+"/", nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil //nolint:nilerr // not listening yet
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		body = string(data)
		return err == nil, err
	})
	require.Equal(t, "served from a real pod\n", body)
}
