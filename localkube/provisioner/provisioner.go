// Package provisioner gives the local cluster persistent volumes, which it
// otherwise lacks (no storage driver, no StorageClass): for every
// PersistentVolumeClaim waiting for a volume it creates a hostPath
// PersistentVolume in a folder of its own, pre-bound to the claim, and the
// controller-manager binds the two. When the claim is deleted and the volume
// becomes Released, it removes the folder and the volume.
//
// A claim gets a volume when it has no spec.volumeName and no spec.selector
// (like a dynamic provisioner, it cannot make a volume match labels). The
// volume has the claim's storage request as capacity, its access modes, volume
// mode and storageClassName ("" when the claim names none), and the Retain
// reclaim policy, so the controller-manager leaves the clean-up to this package.
package provisioner

import (
	"context"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Label marks the PersistentVolumes the provisioner created; only those are reclaimed.
const Label = "styrmin.io/local-volume"

// resync is how often every claim and volume is looked at again, which retries
// what failed.
const resync = 15 * time.Second

// Provisioner creates and reclaims the volumes of the local cluster.
type Provisioner struct {
	core    kubernetes.Interface
	dir     string
	logf    func(format string, args ...any)
	volumes corelisters.PersistentVolumeLister
}

// New returns a Provisioner using core that keeps the volumes' folders under dir.
func New(core kubernetes.Interface, dir string, logf func(format string, args ...any)) *Provisioner {
	return &Provisioner{core: core, dir: dir, logf: logf}
}

// Run watches claims and volumes until ctx ends.
func (p *Provisioner) Run(ctx context.Context) error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("volume provisioner: %w", err)
	}
	factory := informers.NewSharedInformerFactory(p.core, resync)
	volumes := factory.Core().V1().PersistentVolumes()
	p.volumes = volumes.Lister()
	_, err := volumes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.observeVolume(ctx, obj) },
		UpdateFunc: func(_, obj any) { p.observeVolume(ctx, obj) },
	})
	if err != nil {
		return fmt.Errorf("volume provisioner: watch volumes: %w", err)
	}
	factory.Start(ctx.Done())
	// Claims are looked at once the volumes are known, so none gets a second volume.
	if !cache.WaitForCacheSync(ctx.Done(), volumes.Informer().HasSynced) {
		factory.Shutdown()
		return nil // ctx ended
	}
	_, err = factory.Core().V1().PersistentVolumeClaims().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.observeClaim(ctx, obj) },
		UpdateFunc: func(_, obj any) { p.observeClaim(ctx, obj) },
	})
	if err != nil {
		return fmt.Errorf("volume provisioner: watch claims: %w", err)
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
	return nil
}

func (p *Provisioner) observeClaim(ctx context.Context, obj any) {
	claim, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok || !needsVolume(claim) {
		return
	}
	if err := p.provision(ctx, claim); err != nil {
		p.logf("volume provisioner: claim %s/%s: %v", claim.Namespace, claim.Name, err)
	}
}

func (p *Provisioner) observeVolume(ctx context.Context, obj any) {
	volume, ok := obj.(*corev1.PersistentVolume)
	if !ok || volume.Labels[Label] != "true" || volume.Status.Phase != corev1.VolumeReleased || volume.DeletionTimestamp != nil {
		return
	}
	if err := p.reclaim(ctx, volume); err != nil {
		p.logf("volume provisioner: volume %s: %v", volume.Name, err)
	}
}
