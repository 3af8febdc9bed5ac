package provisioner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

func claim(name string, uid types.UID, mutate func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "apps", UID: uid},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("8Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
	if mutate != nil {
		mutate(c)
	}
	return c
}

func TestVolumeFor(t *testing.T) {
	fast := "fast"
	block := corev1.PersistentVolumeBlock
	tests := []struct {
		name      string
		claim     *corev1.PersistentVolumeClaim
		wantClass string
		wantModes []corev1.PersistentVolumeAccessMode
		wantMode  *corev1.PersistentVolumeMode
		wantErr   string
	}{
		{name: "no class", claim: claim("data", "u1", nil), wantModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
		{
			name: "class, modes and volume mode copied",
			claim: claim("data", "u1", func(c *corev1.PersistentVolumeClaim) {
				c.Spec.StorageClassName = &fast
				c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany}
				c.Spec.VolumeMode = &block
			}),
			wantClass: "fast",
			wantModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany},
			wantMode:  &block,
		},
		{
			name:    "no storage request",
			claim:   claim("data", "u1", func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }),
			wantErr: "no storage request: set spec.resources.requests.storage",
		},
		{name: "no UID", claim: claim("data", "", nil), wantErr: "claim has no UID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pv, err := volumeFor(tt.claim, "/run/volumes")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pv.Name != "pvc-u1" || pv.Labels[Label] != "true" {
				t.Errorf("name %s labels %v", pv.Name, pv.Labels)
			}
			if got := pv.Spec.Capacity[corev1.ResourceStorage]; got.String() != "8Gi" {
				t.Errorf("capacity %s, want the request 8Gi", got.String())
			}
			if pv.Spec.StorageClassName != tt.wantClass {
				t.Errorf("class %q, want %q", pv.Spec.StorageClassName, tt.wantClass)
			}
			if !reflect.DeepEqual(pv.Spec.AccessModes, tt.wantModes) || !reflect.DeepEqual(pv.Spec.VolumeMode, tt.wantMode) {
				t.Errorf("access modes %v volume mode %v", pv.Spec.AccessModes, pv.Spec.VolumeMode)
			}
			wantRef := corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "apps", Name: "data", UID: "u1"}
			if pv.Spec.ClaimRef == nil || *pv.Spec.ClaimRef != wantRef {
				t.Errorf("claimRef %+v", pv.Spec.ClaimRef)
			}
			if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != "/run/volumes/pvc-u1" {
				t.Errorf("hostPath %+v", pv.Spec.HostPath)
			}
			if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
				t.Errorf("reclaim policy %s", pv.Spec.PersistentVolumeReclaimPolicy)
			}
		})
	}
}

func TestNeedsVolume(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		want  bool
	}{
		{"pending", claim("a", "u", nil), true},
		{"no phase yet", claim("a", "u", func(c *corev1.PersistentVolumeClaim) { c.Status.Phase = "" }), true},
		{"bound", claim("a", "u", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.VolumeName, c.Status.Phase = "pv", corev1.ClaimBound
		}), false},
		{"pre-bound to a volume", claim("a", "u", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv" }), false},
		{"lost", claim("a", "u", func(c *corev1.PersistentVolumeClaim) { c.Status.Phase = corev1.ClaimLost }), false},
		{"selector", claim("a", "u", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"disk": "ssd"}}
		}), false},
		{"being deleted", claim("a", "u", func(c *corev1.PersistentVolumeClaim) { c.DeletionTimestamp = &now }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := needsVolume(tt.claim); got != tt.want {
				t.Errorf("needsVolume = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRunProvisionsAndReclaims runs the provisioner against a fake API: a
// pending claim gets a volume and a folder, a bound one none, and a released
// volume of its own goes away with its folder while a foreign one stays.
func TestRunProvisionsAndReclaims(t *testing.T) {
	dir := t.TempDir()
	foreign := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "foreign"},
		Status:     corev1.PersistentVolumeStatus{Phase: corev1.VolumeReleased},
	}
	core := fake.NewClientset(foreign)
	var logs logRecorder
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(core, dir, logs.logf).Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	claims := core.CoreV1().PersistentVolumeClaims("apps")
	bound := claim("bound", "u-bound", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "elsewhere" })
	pending := claim("data", "u-data", nil)
	for _, c := range []*corev1.PersistentVolumeClaim{bound, pending} {
		if _, err := claims.Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	volume := waitForVolume(t, core, "pvc-u-data", true)
	if volume.Spec.ClaimRef == nil || volume.Spec.ClaimRef.Name != "data" {
		t.Fatalf("claimRef %+v", volume.Spec.ClaimRef)
	}
	folder := filepath.Join(dir, "pvc-u-data")
	if info, err := os.Stat(folder); err != nil || !info.IsDir() {
		t.Fatalf("volume folder: %v", err)
	} else if info.Mode().Perm() != 0o777 {
		t.Fatalf("volume folder mode %v: a pod running as any user must be able to write to it", info.Mode().Perm())
	}
	// Claims are handled in order, so the bound one was looked at already.
	if _, err := core.CoreV1().PersistentVolumes().Get(ctx, "pvc-u-bound", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a bound claim got a volume: %v", err)
	}

	volume.Status.Phase = corev1.VolumeReleased
	if _, err := core.CoreV1().PersistentVolumes().UpdateStatus(ctx, volume, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForVolume(t, core, "pvc-u-data", false)
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Fatalf("volume folder still there: %v", err)
	}
	if _, err := core.CoreV1().PersistentVolumes().Get(ctx, "foreign", metav1.GetOptions{}); err != nil {
		t.Fatalf("a volume of someone else was touched: %v", err)
	}
	if !logs.contains("volume provisioner: created volume pvc-u-data (8Gi) for claim apps/data in " + folder) {
		t.Errorf("logs: %q", logs.lines)
	}
}

func waitForVolume(t *testing.T, core kubernetes.Interface, name string, present bool) *corev1.PersistentVolume {
	t.Helper()
	var got *corev1.PersistentVolume
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		pv, err := core.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return !present, nil
		}
		got = pv
		return present && err == nil, err
	})
	if err != nil {
		t.Fatalf("waiting for volume %s present=%v: %v", name, present, err)
	}
	return got
}

type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logRecorder) contains(line string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.lines, line)
}
