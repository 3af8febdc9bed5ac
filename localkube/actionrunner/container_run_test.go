package actionrunner

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestRunContainer(t *testing.T) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "ns"}, Data: map[string][]byte{"token": []byte("s3cret")}}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "ns"}, Data: map[string]string{"mode": "fast"}}
	r := &Runner{core: fake.NewClientset(secret, config)}
	secretKey := func(name, key string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "job-abc", Namespace: "ns"}}
	tests := []struct {
		name      string
		container corev1.Container
		limit     time.Duration
		wantCode  int32
		wantRsn   string
		wantLog   []string // "<stream> <tag> <text>" per line
	}{
		{
			name:      "success with both streams",
			container: corev1.Container{Command: []string{"sh", "-c"}, Args: []string{"echo out; sleep 0.1; echo err >&2"}},
			wantCode:  0, wantRsn: "Completed",
			wantLog: []string{"stdout F out", "stderr F err"},
		},
		{
			name:      "exit code kept",
			container: corev1.Container{Command: []string{"sh", "-c", "exit 7"}},
			wantCode:  7, wantRsn: "Error",
		},
		{
			name: "env from values, secrets and the pod",
			container: corev1.Container{Command: []string{"sh", "-c", `echo "$A $TOKEN $POD $HOME"`}, Env: []corev1.EnvVar{
				{Name: "A", Value: "plain"},
				{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "token"}}},
				{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			}},
			wantCode: 0, wantRsn: "Completed",
			wantLog: []string{"stdout F plain s3cret job-abc WORKDIR"},
		},
		{
			name: "secret_env as Styrmin's action Jobs use it: the value reaches the command, not the spec",
			container: corev1.Container{Command: []string{"sh", "-c", "set -e\necho \"PGPASSWORD has ${#PGPASSWORD} characters\""}, Env: []corev1.EnvVar{
				{Name: "PGPASSWORD", ValueFrom: secretKey("creds", "token")},
			}},
			wantCode: 0, wantRsn: "Completed",
			wantLog: []string{"stdout F PGPASSWORD has 6 characters"},
		},
		{
			name: "env from a ConfigMap key",
			container: corev1.Container{Command: []string{"sh", "-c", `echo "$MODE"`}, Env: []corev1.EnvVar{
				{Name: "MODE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "mode"}}},
			}},
			wantCode: 0, wantRsn: "Completed",
			wantLog: []string{"stdout F fast"},
		},
		{
			name:      "missing secret",
			container: corev1.Container{Command: []string{"true"}, Env: []corev1.EnvVar{{Name: "X", ValueFrom: secretKey("gone", "token")}}},
			wantCode:  126, wantRsn: "CreateContainerConfigError",
			wantLog: []string{`stderr F env X of container "": secrets "gone" not found`},
		},
		{
			name:      "missing configmap key",
			container: corev1.Container{Command: []string{"true"}, Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "nope"}}}}},
			wantCode:  126, wantRsn: "CreateContainerConfigError",
			wantLog: []string{`stderr F env X of container "": configmap settings has no key "nope"`},
		},
		{
			name:      "missing secret key",
			container: corev1.Container{Command: []string{"true"}, Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "nope"}}}}},
			wantCode:  126, wantRsn: "CreateContainerConfigError",
			wantLog: []string{`stderr F env X of container "": secret creds has no key "nope"`},
		},
		{
			name:      "time limit",
			container: corev1.Container{Command: []string{"sh", "-c", "echo started; sleep 30"}},
			limit:     500 * time.Millisecond,
			wantCode:  137, wantRsn: "DeadlineExceeded",
			wantLog: []string{"stdout F started", "stderr F killed after the time limit of 500ms"},
		},
		{
			name:     "no command",
			wantCode: 127, wantRsn: "StartError",
			wantLog: []string{`stderr F container "" has no command: the local cluster runs action containers on the host and needs an explicit command (e.g. [sh, -c, ...])`},
		},
		{
			name:      "unknown program",
			container: corev1.Container{Command: []string{"no-such-program-here"}},
			wantCode:  127, wantRsn: "StartError",
			wantLog: []string{`stderr F exec: "no-such-program-here": executable file not found in $PATH`},
		},
	}
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			logPath := filepath.Join(dir, "c.log")
			limit := tt.limit
			if limit == 0 {
				limit = time.Minute
			}
			res := r.runContainer(context.Background(), pod, tt.container, dir, logPath, limit)
			if res.exitCode != tt.wantCode || res.reason != tt.wantRsn {
				t.Fatalf("exit %d %s (%s), want %d %s", res.exitCode, res.reason, res.message, tt.wantCode, tt.wantRsn)
			}
			data, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				if line == "" {
					continue
				}
				if !stamp.MatchString(line) {
					t.Fatalf("log line %q is not in CRI format", line)
				}
				got = append(got, strings.ReplaceAll(stamp.ReplaceAllString(line, ""), dir, "WORKDIR"))
			}
			if strings.Join(got, "\n") != strings.Join(tt.wantLog, "\n") {
				t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.wantLog, "\n"))
			}
		})
	}
}

func TestCRIWriterSplitsLongLines(t *testing.T) {
	var out strings.Builder
	w := &criWriter{w: &out}
	w.copy("stdout", strings.NewReader(strings.Repeat("x", maxLine+10)+"\nshort\n"))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3 (partial, rest, short): %q", len(lines), out.String())
	}
	for i, want := range []string{" stdout P " + strings.Repeat("x", maxLine), " stdout F xxxxxxxxxx", " stdout F short"} {
		if _, text, _ := strings.Cut(lines[i], " "); " "+text != want {
			t.Errorf("line %d = %.60q, want %.60q", i, text, want)
		}
	}
}
