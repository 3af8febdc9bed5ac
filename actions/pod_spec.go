package actions

import (
	"fmt"
	"maps"
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The marks of what the pod runtime creates.
const (
	// ManagedByLabel and ManagedBy mark every object the pod runtime
	// creates as Styrmin's (kube.ManagedByLabel's value, which this package
	// does not import).
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "styrmin"
	// RunLabel marks an action run's pod; its value is the hook step's id.
	RunLabel = "styrmin.io/action-run"
	// ContainerName is the name of the action pod's one container.
	ContainerName = "action"
	// RunnerUID is the user and group the action's container runs as (the
	// action-runner image's).
	RunnerUID = 65532
	// tmpSize bounds the pod's one writable folder, /tmp (the bundle and HOME).
	tmpSize = "256Mi"
	// tokenKey is the key of the run's token in its Secret.
	tokenKey = "token"
)

// DefaultResources are an action pod's requests and limits.
var DefaultResources = corev1.ResourceRequirements{
	Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
}

// PodResources are DefaultResources with the limits cpu and memory where
// given (quantities such as "2" or "500m", "1Gi"; "" keeps the default), and
// each request lowered to its limit where the limit is below it.
func PodResources(cpu, memory string) (corev1.ResourceRequirements, error) {
	out := *DefaultResources.DeepCopy()
	for name, text := range map[corev1.ResourceName]string{corev1.ResourceCPU: cpu, corev1.ResourceMemory: memory} {
		if text == "" {
			continue
		}
		limit, err := resource.ParseQuantity(text)
		if err != nil || limit.Sign() <= 0 {
			example := DefaultResources.Limits[name]
			return corev1.ResourceRequirements{}, fmt.Errorf("the action pods' %s limit %q is not a positive quantity such as %s", name, text, example.String())
		}
		out.Limits[name] = limit
		if request := out.Requests[name]; limit.Cmp(request) < 0 {
			out.Requests[name] = limit
		}
	}
	return out, nil
}

// ServiceAccountName is the service account of a release's action pods:
// one per deployment, with no rights and no mounted token.
func ServiceAccountName(release string) string { return release + "-action" }

// PodName is the name of the pod of the action run on hook step stepID.
func PodName(release string, stepID int64) string {
	return fmt.Sprintf("%s-action-%d", release, stepID)
}

// podLabels are the labels of the objects of spec's run: Styrmin's, the
// owner's (spec.Labels) and, for the pod, the run's.
func podLabels(spec Spec, pod bool) map[string]string {
	labels := maps.Clone(spec.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedByLabel] = ManagedBy
	if pod {
		labels[RunLabel] = strconv.FormatInt(spec.Env.StepID, 10)
	}
	return labels
}

// serviceAccount is the service account of spec's deployment's action pods.
func serviceAccount(spec Spec) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceAccountName(spec.Env.Release), Namespace: spec.Env.Namespace, Labels: podLabels(spec, false)},
		// No token is mounted into a pod of this account, whatever the pod says.
		AutomountServiceAccountToken: ptr.To(false),
	}
}

// tokenSecret is the Secret that holds the token of spec's run, named as its
// pod, which reads it into TokenVariable. The token is not in the pod's spec:
// more people may read pods than Secrets (Kubernetes' view role reads pods,
// not Secrets), and it stays out of every pod listing.
func tokenSecret(spec Spec) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: PodName(spec.Env.Release, spec.Env.StepID), Namespace: spec.Env.Namespace, Labels: podLabels(spec, true)},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{tokenKey: []byte(spec.Env.Token)},
	}
}

// podOf is the pod that runs spec in image with resources: in the
// deployment's namespace, with the run's token from its Secret (tokenSecret),
// as its action service account without a token,
// as a user that is not root, on a read-only root filesystem (an emptyDir on
// /tmp), with every capability dropped, never restarted, and stopped by the
// kubelet at the action's timeout.
func podOf(spec Spec, image string, resources corev1.ResourceRequirements) *corev1.Pod {
	deadline := int64(math.Ceil(spec.Action.TimeoutDuration().Seconds()))
	env := []corev1.EnvVar{{Name: "HOME", Value: "/tmp"}, {Name: "TMPDIR", Value: "/tmp"}, {Name: "LANG", Value: "C.UTF-8"},
		{Name: "PYTHONUNBUFFERED", Value: "1"}, {Name: "PYTHONDONTWRITEBYTECODE", Value: "1"}}
	for _, kv := range runVariables(spec) {
		if kv[0] == TokenVariable {
			env = append(env, corev1.EnvVar{Name: kv[0], ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: tokenSecret(spec).Name}, Key: tokenKey}}})
			continue
		}
		env = append(env, corev1.EnvVar{Name: kv[0], Value: kv[1]})
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: PodName(spec.Env.Release, spec.Env.StepID), Namespace: spec.Env.Namespace, Labels: podLabels(spec, true)},
		Spec: corev1.PodSpec{
			ServiceAccountName:            ServiceAccountName(spec.Env.Release),
			AutomountServiceAccountToken:  ptr.To(false),
			EnableServiceLinks:            ptr.To(false),
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         &deadline,
			TerminationGracePeriodSeconds: ptr.To(int64(killGrace.Seconds())),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(RunnerUID)), RunAsGroup: ptr.To(int64(RunnerUID)),
				FSGroup:        ptr.To(int64(RunnerUID)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: ContainerName, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Env: env, Resources: resources, WorkingDir: "/tmp",
				SecurityContext: &corev1.SecurityContext{
					RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Privileged: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
			}},
			Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse(tmpSize))}}}},
		},
	}
}
