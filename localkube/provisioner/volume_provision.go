package provisioner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// needsVolume reports whether claim waits for a volume this package can make.
func needsVolume(claim *corev1.PersistentVolumeClaim) bool {
	pending := claim.Status.Phase == corev1.ClaimPending || claim.Status.Phase == ""
	return pending && claim.DeletionTimestamp == nil && claim.Spec.VolumeName == "" && claim.Spec.Selector == nil
}

// provision creates claim's volume and its folder, unless the volume exists.
func (p *Provisioner) provision(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	volume, err := volumeFor(claim, p.dir)
	if err != nil {
		return err
	}
	if _, err := p.volumes.Get(volume.Name); err == nil {
		return nil // made already; the controller-manager has yet to bind it
	}
	// Writable by the pod whatever user it runs as (a hostPath volume is
	// not given to the pod's fsGroup), whatever this process's umask.
	if err := os.MkdirAll(volume.Spec.HostPath.Path, 0o777); err != nil {
		return fmt.Errorf("create the volume folder: %w", err)
	}
	if err := os.Chmod(volume.Spec.HostPath.Path, 0o777); err != nil {
		return fmt.Errorf("create the volume folder: %w", err)
	}
	_, err = p.core.CoreV1().PersistentVolumes().Create(ctx, volume, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create volume %s: %w", volume.Name, err)
	}
	size := volume.Spec.Capacity[corev1.ResourceStorage]
	p.logf("volume provisioner: created volume %s (%s) for claim %s/%s in %s", volume.Name, size.String(), claim.Namespace, claim.Name, volume.Spec.HostPath.Path)
	return nil
}

// volumeFor is the hostPath volume for claim, its folder under dir, pre-bound to claim.
func volumeFor(claim *corev1.PersistentVolumeClaim, dir string) (*corev1.PersistentVolume, error) {
	size, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil, errors.New("no storage request: set spec.resources.requests.storage")
	}
	if claim.UID == "" {
		return nil, errors.New("claim has no UID")
	}
	name := "pvc-" + string(claim.UID)
	class := ""
	if claim.Spec.StorageClassName != nil {
		class = *claim.Spec.StorageClassName
	}
	directoryOrCreate := corev1.HostPathDirectoryOrCreate
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{Label: "true"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes:                   slices.Clone(claim.Spec.AccessModes),
			VolumeMode:                    claim.Spec.VolumeMode,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef: &corev1.ObjectReference{
				Kind:       "PersistentVolumeClaim",
				APIVersion: "v1",
				Namespace:  claim.Namespace,
				Name:       claim.Name,
				UID:        claim.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: filepath.Join(dir, name), Type: &directoryOrCreate},
			},
		},
	}, nil
}
