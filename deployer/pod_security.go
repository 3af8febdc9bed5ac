package deployer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/styrmin/styrmin"
)

// Pod Security admission's labels and levels.
const (
	enforceLabel = "pod-security.kubernetes.io/enforce"
	warnLabel    = "pod-security.kubernetes.io/warn"
	// LevelPrivileged, LevelBaseline and LevelRestricted are Pod Security's levels.
	LevelPrivileged = "privileged"
	LevelBaseline   = "baseline"
	LevelRestricted = "restricted"
)

// podSecurityLabel marks, with the level Styrmin enforces there by default,
// a namespace whose Pod Security labels Styrmin manages (one it created).
const podSecurityLabel = "styrmin.io/pod-security"

// privilegedAnnotation lists, comma-separated, the releases of a namespace
// whose approved permissions need privileged pods.
const privilegedAnnotation = "styrmin.io/privileged-releases"

// PodSecurity are the Pod Security levels of the namespaces Styrmin creates.
type PodSecurity struct {
	// Enforce is the level the API server enforces (LevelBaseline when "").
	Enforce string
	// Warn is the level the API server warns about (LevelRestricted when "").
	Warn string
}

// withDefaults fills the levels left empty.
func (p PodSecurity) withDefaults() PodSecurity {
	if p.Enforce == "" {
		p.Enforce = LevelBaseline
	}
	if p.Warn == "" {
		p.Warn = LevelRestricted
	}
	return p
}

// Validate refuses a level that is not one of Pod Security's.
func (p PodSecurity) Validate() error {
	levels := []string{LevelPrivileged, LevelBaseline, LevelRestricted}
	for _, level := range []string{p.Enforce, p.Warn} {
		if level != "" && !slices.Contains(levels, level) {
			return styrmin.Errorf(styrmin.EINVALID, "%q is not a Pod Security level: use privileged, baseline or restricted.", level)
		}
	}
	return nil
}

// NamespaceLabels are the labels of a namespace Styrmin creates: Pod
// Security's levels, and the mark that Styrmin manages them.
func (c *Client) NamespaceLabels() map[string]string {
	return map[string]string{
		enforceLabel:     c.podSecurity.Enforce,
		warnLabel:        c.podSecurity.Warn,
		podSecurityLabel: c.podSecurity.Enforce,
		DeploymentsLabel: "true",
	}
}

// allowPrivileged records whether release's approved permissions need
// privileged pods in namespace, and sets the namespace's enforced level to
// privileged while any release there does, back to its default level when
// none does. A namespace whose labels Styrmin does not manage (one it did
// not create) is left as its owner labelled it.
func (c *Client) allowPrivileged(ctx context.Context, namespace, release string, privileged bool) error {
	namespaces := c.clientset.CoreV1().Namespaces()
	var level string
	changed := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ns, err := namespaces.Get(ctx, namespace, metav1.GetOptions{})
		if err != nil {
			return err
		}
		level = ns.Labels[podSecurityLabel]
		if level == "" {
			return nil
		}
		releases := strings.FieldsFunc(ns.Annotations[privilegedAnnotation], func(r rune) bool { return r == ',' })
		releases = slices.DeleteFunc(releases, func(r string) bool { return r == release })
		if privileged {
			releases = append(releases, release)
		}
		slices.Sort(releases)
		if len(releases) > 0 {
			level = LevelPrivileged
		}
		joined := strings.Join(releases, ",")
		if ns.Labels[enforceLabel] == level && ns.Annotations[privilegedAnnotation] == joined {
			return nil
		}
		ns.Labels[enforceLabel] = level
		if ns.Annotations == nil {
			ns.Annotations = map[string]string{}
		}
		ns.Annotations[privilegedAnnotation] = joined
		_, err = namespaces.Update(ctx, ns, metav1.UpdateOptions{})
		changed = err == nil
		return err
	})
	if err != nil {
		return fmt.Errorf("deployer: Pod Security level of namespace %s: %w", namespace, err)
	}
	if !changed {
		return nil
	}
	return c.awaitPodSecurity(ctx, namespace, level == LevelPrivileged)
}

// awaitPodSecurity returns once the API server admits namespace's deployer a
// pod that shares the node's PID namespace when privileged, and refuses it
// otherwise (dry runs): its admission reads the namespace's labels from a
// cache that follows their changes.
func (c *Client) awaitPodSecurity(ctx context.Context, namespace string, privileged bool) error {
	deployer, err := c.actingAs(c.Impersonation(namespace))
	if err != nil {
		return err
	}
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "styrmin-probe-"},
		Spec:       corev1.PodSpec{HostPID: true, Containers: []corev1.Container{{Name: "probe", Image: "probe"}}},
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, admissionDelay, true, func(ctx context.Context) (bool, error) {
		_, err := deployer.CoreV1().Pods(namespace).Create(ctx, probe, dryRun)
		refused := apierrors.IsForbidden(err) && strings.Contains(err.Error(), "PodSecurity")
		return refused != privileged, nil
	})
	if err != nil {
		return fmt.Errorf("deployer: namespace %s's new Pod Security level is not applied: %w", namespace, err)
	}
	return nil
}
