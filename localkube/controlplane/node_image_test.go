package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/localkube/substitute"
)

// imagesCluster is a running cluster with a real node for the images' test:
// its client, kubectl and the folder pods keep data in.
type imagesCluster struct {
	t          *testing.T
	ctx        context.Context
	core       kubernetes.Interface
	kubeconfig string
	kubectl    string
	data       string
	// page and pageURL are what the nginx pod serves, where; busybox's
	// wget fetches it from another pod.
	page, pageURL string
}

// TestRealNodeRunsTheImagesBuiltHere starts a cluster with a real node,
// which builds (or takes from the checkout's cache) the images made from
// Debian packages and imports them, then runs each stand-in as the bundled
// drivers use the image it replaces.
func TestRealNodeRunsTheImagesBuiltHere(t *testing.T) {
	layout := nodeCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	tested := make(chan struct{})
	go func() {
		done <- Run(ctx, layout, Options{RealNode: true}, t.Logf, func(ctx context.Context, kubeconfig string) error {
			defer close(tested)
			config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return err
			}
			core, err := kubernetes.NewForConfig(config)
			if err != nil {
				return err
			}
			c := &imagesCluster{t: t, ctx: ctx, core: core, kubeconfig: kubeconfig, kubectl: filepath.Join(layout.BinDir(), "kubectl"), data: t.TempDir()}
			rules, err := readRules(layout)
			if err != nil {
				return err
			}
			t.Run("postgres", func(t *testing.T) { c.t = t; c.postgres(rules["docker.io/library/postgres"]) })
			t.Run("redis", func(t *testing.T) { c.t = t; c.redis() })
			t.Run("nginx", func(t *testing.T) { c.t = t; c.nginx() })
			t.Run("busybox", func(t *testing.T) { c.t = t; c.busybox() })
			t.Run("python", func(t *testing.T) { c.t = t; c.python() })
			return nil
		})
	}()
	select {
	case <-tested:
	case err := <-done:
		t.Fatalf("cluster stopped before the tests ran: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// readRules reads the rules the node wrote, by requested repository.
func readRules(layout Layout) (map[string]substitute.Rule, error) {
	data, err := os.ReadFile(layout.ImageRulesFile())
	if err != nil {
		return nil, err
	}
	var list []substitute.Rule
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	rules := map[string]substitute.Rule{}
	for _, r := range list {
		rules[r.Repository] = r
	}
	for _, repo := range []string{"postgres", "redis", "nginx", "busybox", "python"} {
		if r, ok := rules["docker.io/library/"+repo]; !ok || !strings.HasPrefix(r.Runs, "Debian ") {
			return nil, fmt.Errorf("no rule for %s in %s", repo, data)
		}
	}
	return rules, nil
}

// pod is a pod for the real node.
func pod(name string, spec corev1.PodSpec) *corev1.Pod {
	spec.NodeSelector = map[string]string{RealNodeLabel: RealNodeLabelValue}
	for i := range spec.Containers {
		spec.Containers[i].ImagePullPolicy = corev1.PullNever
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

// run creates p and waits until it is in phase (and has an IP), returning it.
func (c *imagesCluster) run(p *corev1.Pod, phase corev1.PodPhase) *corev1.Pod {
	c.t.Helper()
	if _, err := c.core.CoreV1().Pods("default").Create(c.ctx, p, metav1.CreateOptions{}); err != nil {
		c.t.Fatal(err)
	}
	var got *corev1.Pod
	err := wait.PollUntilContextTimeout(c.ctx, 300*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if got, err = c.core.CoreV1().Pods("default").Get(ctx, p.Name, metav1.GetOptions{}); err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		if got.Status.Phase == corev1.PodFailed && phase != corev1.PodFailed {
			return false, fmt.Errorf("pod failed")
		}
		return got.Status.Phase == phase && got.Status.PodIP != "", nil
	})
	if err != nil {
		c.t.Fatalf("pod %s not %s: %v (status %+v)\nlog:\n%s", p.Name, phase, err, got.Status, c.kubectlOut("logs", p.Name))
	}
	return got
}

// remove deletes a pod and waits until it is gone.
func (c *imagesCluster) remove(name string) {
	c.t.Helper()
	zero := int64(0)
	if err := c.core.CoreV1().Pods("default").Delete(c.ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		c.t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(c.ctx, 300*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.core.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		return err != nil, nil
	})
	if err != nil {
		c.t.Fatalf("pod %s not gone: %v", name, err)
	}
}

// kubectlOut runs kubectl and returns its output, whatever the outcome.
func (c *imagesCluster) kubectlOut(args ...string) string {
	out, _ := exec.CommandContext(c.ctx, c.kubectl, append([]string{"--kubeconfig", c.kubeconfig}, args...)...).CombinedOutput() //nolint:errcheck // the output says it
	return string(out)
}

// exec runs a shell command in the pod's container; it must succeed.
func (c *imagesCluster) exec(pod, script string) string {
	c.t.Helper()
	out, err := c.execErr(pod, script)
	if err != nil {
		c.t.Fatalf("in %s: %s: %v\n%s", pod, script, err, out)
	}
	return out
}

func (c *imagesCluster) execErr(pod, script string) (string, error) {
	cmd := exec.CommandContext(c.ctx, c.kubectl, "--kubeconfig", c.kubeconfig, "exec", pod, "--", "sh", "-c", script)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// eventually runs script in pod until it succeeds (a server starting).
func (c *imagesCluster) eventually(pod, script string) string {
	c.t.Helper()
	var out string
	err := wait.PollUntilContextTimeout(c.ctx, time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		var err error
		out, err = c.execErr(pod, script)
		return err == nil, nil
	})
	if err != nil {
		c.t.Fatalf("in %s: %s never succeeded: %s\nlog:\n%s", pod, script, out, c.kubectlOut("logs", pod))
	}
	return out
}

// postgresPod is the postgres stand-in as the bundled chart runs it: the
// official image's variables, PGDATA below the volume, -c arguments, and a
// host folder (not chowned by fsGroup) as the volume.
func (c *imagesCluster) postgresPod(image string) *corev1.Pod {
	fsGroup := int64(999)
	dir := corev1.HostPathDirectoryOrCreate
	return pod("pg", corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{FSGroup: &fsGroup},
		Containers: []corev1.Container{{
			Name:  "postgres",
			Image: image,
			Args:  []string{"-c", "max_connections=23"},
			Env: []corev1.EnvVar{
				{Name: "POSTGRES_PASSWORD", Value: "s3cret"},
				{Name: "POSTGRES_USER", Value: "owner"},
				{Name: "POSTGRES_DB", Value: "shop"},
				{Name: "PGDATA", Value: "/var/lib/postgresql/data/pgdata"},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}},
		}},
		Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: filepath.Join(c.data, "pg"), Type: &dir}}}},
	})
}

func (c *imagesCluster) postgres(rule substitute.Rule) {
	p := c.run(c.postgresPod(rule.Image), corev1.PodRunning)
	// Over TCP to the pod's own address a password is required.
	login := func(password string) string {
		return fmt.Sprintf("PGPASSWORD=%s psql -h %s -U owner -d shop -tAc", password, p.Status.PodIP)
	}
	c.eventually("pg", login("s3cret")+" 'SELECT 1'")
	if out, err := c.execErr("pg", login("wrong")+" 'SELECT 1'"); err == nil || !strings.Contains(out, "password authentication failed") {
		c.t.Fatalf("a wrong password logged in: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(c.exec("pg", login("s3cret")+" 'SHOW max_connections'")); got != "23" {
		c.t.Errorf("max_connections %q: the -c argument did not reach postgres", got)
	}
	version := strings.TrimPrefix(rule.Runs, "Debian PostgreSQL ")
	if got := c.exec("pg", login("s3cret")+" 'SHOW server_version'"); !strings.HasPrefix(strings.TrimSpace(got), version) {
		c.t.Errorf("the server runs %q, the rule says %q", got, rule.Runs)
	}
	c.exec("pg", login("s3cret")+" 'CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$survives$$)'")
	// The bundled driver's backup: pg_dump over the local socket, run by the
	// server as postgres, writing next to PGDATA on the volume.
	c.exec("pg", `psql -U owner -d shop -v ON_ERROR_STOP=1 -c "COPY (SELECT 1) TO PROGRAM 'mkdir -p /var/lib/postgresql/data/backups && pg_dump --format=custom --username=owner --dbname=shop --file=/var/lib/postgresql/data/backups/shop.dump'"`)
	if out := c.exec("pg", "ls -ln /var/lib/postgresql/data/backups/shop.dump && id -u postgres"); !strings.Contains(out, " 999 999 ") {
		c.t.Errorf("the dump is not postgres's (999): %s", out)
	}

	c.remove("pg")
	p = c.run(c.postgresPod(rule.Image), corev1.PodRunning)
	login = func(password string) string {
		return fmt.Sprintf("PGPASSWORD=%s psql -h %s -U owner -d shop -tAc", password, p.Status.PodIP)
	}
	if got := strings.TrimSpace(c.eventually("pg", login("s3cret")+" 'SELECT v FROM kept'")); got != "survives" {
		c.t.Errorf("after the pod's restart the row reads %q", got)
	}
	c.remove("pg")
}

func (c *imagesCluster) redis() {
	uid := int64(999)
	c.run(pod("redis", corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsUser: &uid, RunAsGroup: &uid, FSGroup: &uid},
		Containers: []corev1.Container{{
			Name: "redis", Image: "styrmin.local/redis:7",
			Command: []string{"redis-server"}, Args: []string{"--requirepass", "pw", "--appendonly", "yes"},
		}},
	}), corev1.PodRunning)
	if out := c.eventually("redis", "redis-cli ping 2>&1 | grep NOAUTH"); !strings.Contains(out, "NOAUTH") {
		c.t.Fatalf("redis answered without the password: %s", out)
	}
	if out := c.exec("redis", "REDISCLI_AUTH=pw redis-cli set greeting hello && REDISCLI_AUTH=pw redis-cli get greeting"); !strings.Contains(out, "hello") {
		c.t.Errorf("redis did not keep a key: %s", out)
	}
	if out := c.exec("redis", "ls -ln /data && id -un"); !strings.Contains(out, "appendonlydir") || !strings.Contains(out, "redis") {
		c.t.Errorf("redis writes no data in /data as redis (999): %s", out)
	}
	c.remove("redis")

	// Without the chart's securityContext, the entrypoint starts as root,
	// passes "-" arguments to redis-server and runs it as 999.
	c.run(pod("redis-root", corev1.PodSpec{
		Containers: []corev1.Container{{Name: "redis", Image: "styrmin.local/redis:7", Args: []string{"--requirepass", "pw"}}},
	}), corev1.PodRunning)
	c.eventually("redis-root", "redis-cli ping 2>&1 | grep NOAUTH")
	if out := c.exec("redis-root", "grep ^Uid: /proc/1/status"); !strings.Contains(out, "\t999\t") {
		c.t.Errorf("redis-server does not run as 999: %s", out)
	}
	c.remove("redis-root")
}

// nginx serves a mounted page, fetched from the host at the pod's IP; the
// pod stays for busybox.
func (c *imagesCluster) nginx() {
	page := "<h1>made here</h1>"
	if err := os.WriteFile(filepath.Join(c.data, "index.html"), []byte(page), 0o644); err != nil {
		c.t.Fatal(err)
	}
	file := corev1.HostPathFile
	p := c.run(pod("web", corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "nginx", Image: "styrmin.local/nginx:1",
			VolumeMounts: []corev1.VolumeMount{{Name: "page", MountPath: "/usr/share/nginx/html/index.html", ReadOnly: true}},
		}},
		Volumes: []corev1.Volume{{Name: "page", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: filepath.Join(c.data, "index.html"), Type: &file}}}},
	}), corev1.PodRunning)
	url := "http://" + p.Status.PodIP + "/"
	var body string
	err := wait.PollUntilContextTimeout(c.ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		resp, err := http.Get(url)
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body) //nolint:errcheck // checked by its content
		body = string(data)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil || body != page {
		c.t.Fatalf("GET %s: %v, %q; want the mounted page", url, err, body)
	}
	if log := c.kubectlOut("logs", "web"); !strings.Contains(log, `"GET / HTTP/1.1" 200`) {
		c.t.Errorf("nginx's access log is not on stdout: %s", log)
	}
	c.page, c.pageURL = page, url
}

// busybox runs busybox's shell and httpd, and wget with a timeout as the
// hello-web driver's actions do (GNU wget: see nodeimages), against its own
// httpd and the nginx pod.
func (c *imagesCluster) busybox() {
	if c.pageURL == "" {
		c.t.Fatal("no nginx pod to fetch a page from")
	}
	script := "set -eu -o pipefail; mkdir /tmp/www; echo made-here > /tmp/www/index.html; httpd -p 8080 -h /tmp/www; " +
		"readlink /usr/local/bin/nslookup; readlink /usr/local/bin/sh; wget -q -T 10 -O - http://127.0.0.1:8080/; wget -q -T 10 -O - " + c.pageURL
	c.run(pod("box", corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{{Name: "box", Image: "styrmin.local/busybox:1", Command: []string{"sh", "-c", script}}},
	}), corev1.PodSucceeded)
	if log, want := c.kubectlOut("logs", "box"), "/bin/busybox\n/bin/busybox\nmade-here\n"+c.page; log != want {
		c.t.Errorf("busybox printed %q, want %q: its applets and the pages wget fetched", log, want)
	}
	c.remove("box")
	c.remove("web")
}

func (c *imagesCluster) python() {
	c.run(pod("py", corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: "py", Image: "styrmin.local/python:3",
			Command: []string{"python", "-c", "import json, sys; print(json.dumps(sys.version_info[:2]))"},
		}},
	}), corev1.PodSucceeded)
	if log := strings.TrimSpace(c.kubectlOut("logs", "py")); !strings.HasPrefix(log, "[3, ") {
		c.t.Errorf("python printed %q", log)
	}
	c.remove("py")
}
