package deploy_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/version"
)

// TestTheEnginesImageRunsOnTheNodeAndHoldsWhatClusterImageHolds takes
// Styrmin's image that buildah built for the release (releaseArtefacts),
// runs it as a pod on the local node (its binary says its stamped version)
// and compares its files, user and entrypoint with scripts/cluster-image's
// engine-less image of the same Containerfile.
func TestTheEnginesImageRunsOnTheNodeAndHoldsWhatClusterImageHolds(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	_, progress := releaseArtefacts(t)
	require.Contains(t, progress, "substituted base image: gcr.io/distroless/python3-debian12:nonroot -> styrmin.local/python:3", "the substitution is said")
	for _, image := range []string{releaseImage, releaseRunner} {
		require.Contains(t, strings.Fields(progress), image, "the images are built under the release's version")
	}

	rest, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	kube := kubernetes.NewForConfigOrDie(rest)
	logs := runPod(t, kube, releaseImage, "version", "--output", "json")
	var info version.Info
	require.NoError(t, json.Unmarshal([]byte(logs), &info), logs)
	require.Equal(t, releaseVersion, info.Version, "the image's binary is stamped with the release's version")

	engine := nodeImage(t, releaseImage)
	plain := nodeImage(t, clusterImage(t))
	require.Equal(t, plain.user, engine.user)
	require.Equal(t, plain.entrypoint, engine.entrypoint)
	require.Equal(t, plain.files, engine.files, "the same paths with the same types and modes")
	require.Contains(t, engine.files, "styrmin")
}

// runPod runs image with args as a pod in a namespace of its own, waits for
// it to succeed and returns its log.
func runPod(t *testing.T, kube kubernetes.Interface, image string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "styrmin-image-"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) //nolint:errcheck // best effort
	})
	pod, err := kube.CoreV1().Pods(ns.Name).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "run"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
			Name: "run", Image: image, ImagePullPolicy: corev1.PullNever, Args: args,
		}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	var phase corev1.PodPhase
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := kube.CoreV1().Pods(ns.Name).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase = p.Status.Phase
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed, nil
	})
	log, logErr := kube.CoreV1().Pods(ns.Name).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	require.NoError(t, err, "pod %s: %s %s", phase, log, logErr)
	require.Equal(t, corev1.PodSucceeded, phase, "%s", log)
	return string(log)
}

// imageContents is what an image holds: its files' paths with their type
// and mode (not their bytes: the two builds' binaries differ), its user and
// its entrypoint.
type imageContents struct {
	files      map[string]string
	user       string
	entrypoint []string
}

// nodeImage exports name from the local node's containerd and reads it.
func nodeImage(t *testing.T, name string) imageContents {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	archive := filepath.Join(t.TempDir(), "image.tar")
	out, err := exec.Command(filepath.Join(root, ".cluster", "bin", "ctr"), "--address", filepath.Join(root, ".cluster", "run", "node", "containerd.sock"),
		"--namespace", "k8s.io", "images", "export", "--platform", "linux/amd64", archive, name).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var config struct {
		Config struct {
			User       string
			Entrypoint []string
		} `json:"config"`
	}
	layers := ociImage(t, archive, &config)
	c := imageContents{files: map[string]string{}, user: config.Config.User, entrypoint: config.Config.Entrypoint}
	for _, layer := range layers {
		layerFiles(t, archive, blobPath(layer), c.files)
	}
	return c
}

// layerFiles adds the entries of the layer at blob in the OCI archive to
// files (path: type and mode), applying its whiteouts.
func layerFiles(t *testing.T, archive, blob string, files map[string]string) {
	t.Helper()
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	outer := tar.NewReader(f)
	for {
		h, err := outer.Next()
		require.NoError(t, err, "blob %s is in the archive", blob)
		if strings.TrimPrefix(h.Name, "./") != blob {
			continue
		}
		layer := bufio.NewReader(outer)
		var r io.Reader = layer
		if magic, _ := layer.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
			gz, err := gzip.NewReader(layer)
			require.NoError(t, err)
			r = gz
		}
		inner := tar.NewReader(r)
		for {
			e, err := inner.Next()
			if err == io.EOF {
				return
			}
			require.NoError(t, err)
			name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(e.Name, "./"), "/"), "/")
			dir, base := filepath.Split(name)
			if deleted, ok := strings.CutPrefix(base, ".wh."); ok {
				delete(files, dir+deleted)
				continue
			}
			if name != "" {
				files[name] = fmt.Sprintf("%c %o", e.Typeflag, e.Mode&0o7777)
			}
		}
	}
}
