// Package controlplane starts and stops the local cluster: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok managing one fake Node, all on
// 127.0.0.1, and reports when the cluster can run pods. With Options.RealNode it
// also runs a real node beside kwok's, in a network namespace of its own:
// containerd with runc and CNI, a kubelet registered as RealNodeName,
// kube-proxy and cluster DNS (CoreDNS), all private to the cluster's folder;
// the API server then listens on the host's end of the node's veth.
package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/styrmin/styrmin/localkube/pki"
	"github.com/styrmin/styrmin/localkube/substitute"
)

// NodeName is the name of the cluster's only Node, managed by kwok.
const NodeName = "styrmin-local"

// Layout is where the cluster keeps its files, all under one directory.
type Layout struct {
	Dir string // e.g. .cluster
}

// BinDir holds the built component binaries.
func (l Layout) BinDir() string { return filepath.Join(l.Dir, "bin") }

// LogDir holds one log file per component.
func (l Layout) LogDir() string { return filepath.Join(l.Dir, "logs") }

// RunDir holds the state of the running cluster (data, certificates, action scratch folders, volumes).
func (l Layout) RunDir() string { return filepath.Join(l.Dir, "run") }

// Kubeconfig is the admin kubeconfig of the running cluster.
func (l Layout) Kubeconfig() string { return filepath.Join(l.Dir, "kubeconfig") }

// ReadyFile exists while the cluster is up and ready; it holds a State.
func (l Layout) ReadyFile() string { return filepath.Join(l.Dir, "ready.json") }

// State describes a running cluster; it is written to Layout.ReadyFile.
type State struct {
	PID        int    `json:"pid"`
	Server     string `json:"server"`
	Kubeconfig string `json:"kubeconfig"`
	// Node is where pods run: NodeReal or NodeSimulated.
	Node string `json:"node"`
}

// The values of State.Node.
const (
	NodeReal      = "real" // containerd and a kubelet run the pods
	NodeSimulated = "kwok" // kwok's node only: pods report Running without running
)

// Options choose what the cluster runs beside its control plane.
type Options struct {
	// RealNode also starts the real node (containerd, a kubelet, kube-proxy
	// and cluster DNS, in the node's network namespace).
	RealNode bool
	// SubstituteImages runs the image substitution webhook (package
	// admission): every pod's images are replaced by ones built on the
	// machine, or by one that says none is.
	SubstituteImages bool
	// ImageRules are substitutions the webhook makes beside the rules of the
	// images the real node builds.
	ImageRules []substitute.Rule
}

// node is the State.Node the options give.
func (o Options) node() string {
	if o.RealNode {
		return NodeReal
	}
	return NodeSimulated
}

// ports are the ports of the components, chosen free at start.
type ports struct {
	etcdClient, etcdPeer, apiserver, controllerManager, scheduler, kwok int
	kubelet, kubeletHealthz                                             int
}

func freePorts() (ports, error) {
	var got []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range 8 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return ports{}, fmt.Errorf("find a free port: %w", err)
		}
		listeners = append(listeners, l)
		got = append(got, l.Addr().(*net.TCPAddr).Port)
	}
	return ports{got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]}, nil
}

// Run starts the cluster in layout, logs progress with logf, marks it ready,
// then keeps it running until ctx ends and stops every component in reverse order.
// onReady runs (with the admin kubeconfig path) once the cluster is ready; the
// cluster stops when it returns an error.
func Run(ctx context.Context, layout Layout, opts Options, logf func(format string, args ...any), onReady func(ctx context.Context, kubeconfig string) error) (err error) {
	// What a real node left after an unclean stop goes before run/ is wiped.
	if err := sweepNode(layout); err != nil {
		return err
	}
	if err := prepareDirs(layout); err != nil {
		return err
	}
	p, err := freePorts()
	if err != nil {
		return err
	}
	// With a real node, the API server listens on the host's end of the
	// node's veth (which the node's namespace reaches) instead of loopback.
	var network nodeNetwork
	apiHost := "127.0.0.1"
	if opts.RealNode {
		if network, err = planNodeNetwork(layout.Dir); err != nil {
			return err
		}
		apiHost = network.Host.String()
	}
	files, err := pki.Generate(filepath.Join(layout.RunDir(), "pki"), network.serverIPs()...)
	if err != nil {
		return err
	}
	server := "https://" + net.JoinHostPort(apiHost, strconv.Itoa(p.apiserver))
	if err := pki.WriteKubeconfig(layout.Kubeconfig(), server, files); err != nil {
		return err
	}

	var running []*process
	defer func() {
		os.Remove(layout.ReadyFile())
		logf("stopping")
		for i := len(running) - 1; i >= 0; i-- {
			if stopErr := running[i].stop(30 * time.Second); stopErr != nil {
				err = errors.Join(err, stopErr)
			}
		}
		err = errors.Join(err, sweepNode(layout))
		logf("stopped")
	}()
	startProc := func(namespace, name string, args []string, ready func(context.Context) error) (*process, error) {
		logf("starting %s", name)
		proc, err := startProcess(layout.BinDir(), layout.LogDir(), namespace, name, args...)
		if err != nil {
			return nil, err
		}
		running = append(running, proc)
		return proc, waitFor(ctx, name, 2*time.Minute, proc, ready)
	}
	start := func(name string, args []string, ready func(context.Context) error) error {
		_, err := startProc("", name, args, ready)
		return err
	}
	var node realNode
	apiArgs := apiserverArgs(layout, p, files)
	if opts.RealNode {
		if node, err = prepareRealNode(network, files); err != nil {
			return err
		}
		apiArgs = setFlags(apiArgs, node.apiserverNodeArgs(files))
	}

	if err := start("etcd", etcdArgs(layout, p), httpOK(fmt.Sprintf("http://127.0.0.1:%d/health", p.etcdClient))); err != nil {
		return err
	}
	client, err := newAdminClient(layout.Kubeconfig())
	if err != nil {
		return err
	}
	if err := start("kube-apiserver", apiArgs, client.apiserverReady); err != nil {
		return err
	}
	if err := client.setup(ctx, opts.RealNode); err != nil {
		return err
	}
	kcArgs := controllerManagerArgs(layout, p, files)
	if err := start("kube-controller-manager", kcArgs, httpOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", p.controllerManager))); err != nil {
		return err
	}
	if err := start("kube-scheduler", schedulerArgs(layout, p), httpOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", p.scheduler))); err != nil {
		return err
	}
	kwokArgs, err := kwokArgs(layout, p, files)
	if err != nil {
		return err
	}
	if err := start("kwok", kwokArgs, client.nodeReady(NodeName)); err != nil {
		return err
	}
	rules := opts.ImageRules
	if opts.RealNode {
		if err := node.start(ctx, layout, p, server, files, client, startProc); err != nil {
			return err
		}
		built, err := importNodeImages(ctx, layout, logf)
		if err != nil {
			return err
		}
		rules = append(rules, built...)
	}
	logf("waiting for the default service account")
	if err := waitFor(ctx, "default service account", 2*time.Minute, nil, client.defaultServiceAccount); err != nil {
		return err
	}
	if opts.SubstituteImages {
		logf("starting the image substitution webhook")
		stopWebhook, err := startImageSubstitution(ctx, rules, files, client)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stopWebhook()) }()
	}
	if err := writeState(layout, server, opts.node()); err != nil {
		return err
	}
	logf("ready: kubeconfig %s", layout.Kubeconfig())

	readyCtx, cancel := context.WithCancel(ctx)
	onReadyErr := make(chan error, 1)
	onReadyDone := make(chan struct{})
	go func() {
		defer close(onReadyDone)
		onReadyErr <- onReady(readyCtx, layout.Kubeconfig())
	}()
	err = supervise(ctx, running, onReadyErr)
	cancel()
	select { // let onReady (the volume provisioner) end its work before the components stop
	case <-onReadyDone:
	case <-time.After(10 * time.Second):
	}
	return err
}

// supervise waits for ctx to end, a component to exit or onReady to fail.
func supervise(ctx context.Context, running []*process, onReadyErr <-chan error) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-onReadyErr:
			if err != nil {
				return err
			}
			onReadyErr = nil
		case <-tick.C:
			for _, p := range running {
				if done, err := p.exited(); done {
					return err
				}
			}
		}
	}
}

func prepareDirs(layout Layout) error {
	// A fresh cluster each start: old data would carry old ports and certificates.
	if err := os.RemoveAll(layout.RunDir()); err != nil {
		return fmt.Errorf("clean %s: %w", layout.RunDir(), err)
	}
	for _, dir := range []string{layout.LogDir(), layout.RunDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	os.Remove(layout.ReadyFile())
	return nil
}

func writeState(layout Layout, server, node string) error {
	data, err := json.Marshal(State{PID: os.Getpid(), Server: server, Kubeconfig: layout.Kubeconfig(), Node: node})
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	tmp := layout.ReadyFile() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(tmp, layout.ReadyFile()); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}
