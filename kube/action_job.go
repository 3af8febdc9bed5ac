package kube

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/redact"
)

// The label that marks the Jobs (and their pod templates) that run driver
// actions: ActionJobLabel=ActionJobLabelValue. The local cluster's simulated
// node (localkube/controlplane, a separate module) never pretends to run the
// pods carrying it; a test checks that its copy is the same.
const (
	// ActionJobLabel is the label's key.
	ActionJobLabel = "styrmin.io/action-job"
	// ActionJobLabelValue is the label's value.
	ActionJobLabelValue = "true"
)

// ActionJobContainer is the name of the one container of an action Job's pod.
const ActionJobContainer = "action"

// actionJobSuffix ends the name of a release's action Job.
const actionJobSuffix = "-job"

// maxJobName is the longest Job name Kubernetes accepts: the Job controller
// copies it into the pods' job-name label, a label value of at most 63 characters.
const maxJobName = validation.LabelValueMaxLength

// ActionJobName is the name of the Job that execute_commands runs for release:
// "<release>-job". Release names are at most 49 characters, so it always fits.
func ActionJobName(release string) string { return release + actionJobSuffix }

// ActionJob is what one execute_commands call asks for.
type ActionJob struct {
	// Namespace is the deployment's namespace, where the Job runs.
	Namespace string
	// Release is the deployment's Helm release name; the Job is ActionJobName(Release).
	Release string
	// Commands are shell commands run in order by `sh -c`, stopping at the first
	// that fails (see ActionJobScript).
	Commands []string
	// Image is the container image. The local cluster runs a stand-in built
	// on its machine in its place (docs/local-cluster.md).
	Image string
	// Env holds plain environment variables (name → value).
	Env map[string]string
	// SecretEnv holds environment variables with secret values (name →
	// value). They go into the Job's own Secret, which the Job owns, and the
	// container reads them through valueFrom.secretKeyRef, so the Job's spec
	// never holds a value.
	SecretEnv map[string]string
	// Timeout is the Job's activeDeadlineSeconds, rounded up to whole seconds.
	Timeout time.Duration
	// Redactor hides the secrets of the action's run in the Job's tail;
	// nil: the common forms of secrets only.
	Redactor *redact.Redactor
	// RecordDeleted, when set, is called as soon as the ended Job of an
	// earlier call has been deleted, before anything else happens; its error
	// ends the call.
	RecordDeleted func(ctx context.Context, job string) error
}

// ActionJobScript is the script the Job's container runs as `sh -c <script>`:
// the line "set -e", then each command on its own line, in order. The shell
// stops at the first command that fails (as `set -e` defines it: the last
// command of a pipeline counts, commands tested by if, while, && and || do
// not), and the container's exit code is that command's.
func ActionJobScript(commands []string) string {
	return "set -e\n" + strings.Join(commands, "\n")
}

// validate checks the fields of j and says what to fix.
func (j ActionJob) validate() error {
	fields := map[string]string{}
	switch {
	case j.Namespace == "":
		fields["namespace"] = "A namespace is required."
	case len(validation.IsDNS1123Label(j.Namespace)) > 0:
		fields["namespace"] = fmt.Sprintf("%q is not a namespace name.", j.Namespace)
	}
	name := ActionJobName(j.Release)
	switch {
	case j.Release == "":
		fields["release"] = "A release is required."
	case len(name) > maxJobName || len(validation.IsDNS1123Label(name)) > 0:
		fields["release"] = fmt.Sprintf("%q gives no valid Job name (%s: lowercase letters, digits and '-', at most %d characters).", j.Release, name, maxJobName)
	}
	switch {
	case len(j.Commands) == 0:
		fields["commands"] = "At least one command is required."
	case containsBlank(j.Commands):
		fields["commands"] = "A command is empty."
	}
	if strings.TrimSpace(j.Image) == "" {
		fields["image"] = "An image is required."
	}
	if j.Timeout <= 0 {
		fields["timeout"] = "The timeout must be above 0."
	}
	for name := range j.Env {
		if len(validation.IsEnvVarName(name)) > 0 {
			fields["env"] = fmt.Sprintf("%q is not an environment variable name.", name)
		}
	}
	for name := range j.SecretEnv {
		if len(validation.IsEnvVarName(name)) > 0 {
			fields["secret_env"] = fmt.Sprintf("%q is not an environment variable name.", name)
		}
		if _, both := j.Env[name]; both {
			fields["secret_env"] = fmt.Sprintf("%s is in both env and secret_env.", name)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	msgs := make([]string, len(keys))
	for i, k := range keys {
		msgs[i] = k + ": " + fields[k]
	}
	return &styrmin.Error{Code: styrmin.EINVALID, Message: "The Job cannot run: " + strings.Join(msgs, " "), Fields: fields}
}

func containsBlank(commands []string) bool {
	for _, c := range commands {
		if strings.TrimSpace(c) == "" {
			return true
		}
	}
	return false
}

// actionJobGracePeriod is how long an action Job's pod has to end once it is
// told to stop (its time limit, a cancelled action), before it is killed.
const actionJobGracePeriod = 5 * time.Second

// job is the Kubernetes Job that runs j: labelled on the Job and its pods,
// ending at its first failed pod, bounded by j.Timeout and kept after it
// ends; its container reads j.SecretEnv from the Secret secret. It is
// created suspended when it has a Secret, which must exist before it runs.
func (j ActionJob) job(secret string) *batchv1.Job {
	labels := func() map[string]string {
		return map[string]string{ActionJobLabel: ActionJobLabelValue, ManagedByLabel: ManagedBy}
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: ActionJobName(j.Release), Namespace: j.Namespace, Labels: labels()},
		Spec: batchv1.JobSpec{
			Suspend:               ptr.To(len(j.SecretEnv) > 0),
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To(int64(math.Ceil(j.Timeout.Seconds()))),
			// No TTLSecondsAfterFinished: the Job stays until the next call deletes it.
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels()},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// A stopped Job ends soon: sh, the container's first
					// process, ignores SIGTERM, so its commands get
					// actionJobGracePeriod before they are killed.
					TerminationGracePeriodSeconds: ptr.To(int64(actionJobGracePeriod.Seconds())),
					// The commands need no access to the cluster's API.
					AutomountServiceAccountToken: ptr.To(false),
					Containers: []corev1.Container{{
						Name:    ActionJobContainer,
						Image:   j.Image,
						Command: []string{"sh", "-c", ActionJobScript(j.Commands)},
						Env:     j.envVars(secret),
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
						},
					}},
				},
			},
		},
	}
}

// envVars are Env's values and references to SecretEnv's keys in the Secret
// secret, sorted by name.
func (j ActionJob) envVars(secret string) []corev1.EnvVar {
	vars := make([]corev1.EnvVar, 0, len(j.Env)+len(j.SecretEnv))
	for name, value := range j.Env {
		vars = append(vars, corev1.EnvVar{Name: name, Value: value})
	}
	for name := range j.SecretEnv {
		vars = append(vars, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret},
			Key:                  name,
		}}})
	}
	sort.Slice(vars, func(a, b int) bool { return vars[a].Name < vars[b].Name })
	return vars
}
