package provisioner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// reclaim removes a released volume's folder, then the volume.
func (p *Provisioner) reclaim(ctx context.Context, volume *corev1.PersistentVolume) error {
	if volume.Spec.HostPath == nil || !p.owns(volume.Spec.HostPath.Path) {
		return fmt.Errorf("not a hostPath folder under %s: left alone", p.dir)
	}
	if err := os.RemoveAll(volume.Spec.HostPath.Path); err != nil {
		return fmt.Errorf("remove the volume folder: %w", err)
	}
	err := p.core.CoreV1().PersistentVolumes().Delete(ctx, volume.Name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	p.logf("volume provisioner: deleted released volume %s and %s", volume.Name, volume.Spec.HostPath.Path)
	return nil
}

// owns reports whether path is a folder directly inside the provisioner's folder.
func (p *Provisioner) owns(path string) bool {
	rel, err := filepath.Rel(p.dir, path)
	return err == nil && rel != "." && !strings.Contains(rel, string(filepath.Separator)) && rel != ".."
}
