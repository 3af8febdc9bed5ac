package admission

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/localkube/substitute"
)

// testRules are the rules of the tests: PostgreSQL and Redis stand-ins.
var testRules = []substitute.Rule{
	{Repository: "docker.io/library/postgres", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"},
	{Repository: "docker.io/library/redis", Image: "styrmin.local/redis:7", Runs: "Debian Redis 7.0.15"},
}

func mustRules(t *testing.T) *Rules {
	t.Helper()
	rules, err := NewRules(testRules)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// applied is pod after its PodPatch, applied as the API server applies it.
func applied(t *testing.T, pod *corev1.Pod, rules *Rules) (*corev1.Pod, error) {
	t.Helper()
	ops, err := PodPatch(pod, rules)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return pod, nil
	}
	doc, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	patchJSON, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		t.Fatalf("the patch is not JSON Patch: %v\n%s", err, patchJSON)
	}
	out, err := patch.Apply(doc)
	if err != nil {
		t.Fatalf("the patch does not apply: %v\n%s", err, patchJSON)
	}
	var got corev1.Pod
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return &got, nil
}

// substitutions reads pod's substitute.Annotation; nil when it has none.
func substitutions(t *testing.T, pod *corev1.Pod) []substitute.Substitution {
	t.Helper()
	value, ok := pod.Annotations[substitute.Annotation]
	if !ok {
		return nil
	}
	var out []substitute.Substitution
	if err := json.Unmarshal([]byte(value), &out); err != nil {
		t.Fatalf("annotation %s is not a list of substitutions: %v", substitute.Annotation, err)
	}
	return out
}

func podOf(images ...string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for i, image := range images {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: image, ImagePullPolicy: corev1.PullIfNotPresent})
	}
	return pod
}

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestPodPatchSubstitutesEachFormOfAReference(t *testing.T) {
	for _, requested := range []string{
		"postgres", "postgres:16.4", "postgres@" + digest, "postgres:16.4@" + digest,
		"library/postgres:16", "docker.io/postgres:16", "docker.io/library/postgres:16", "index.docker.io/library/postgres:16",
	} {
		t.Run(requested, func(t *testing.T) {
			got, err := applied(t, podOf(requested), mustRules(t))
			if err != nil {
				t.Fatal(err)
			}
			c := got.Spec.Containers[0]
			if c.Image != "styrmin.local/postgres:15" || c.ImagePullPolicy != corev1.PullNever {
				t.Errorf("container runs %s with pull policy %s, want styrmin.local/postgres:15 with Never", c.Image, c.ImagePullPolicy)
			}
			want := []substitute.Substitution{{Container: "c0", Requested: requested, Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"}}
			if got := substitutions(t, got); !equal(got, want) {
				t.Errorf("annotation %+v, want %+v", got, want)
			}
		})
	}
}

func TestPodPatchSendsAnImageWithoutRuleToOneThatSaysSo(t *testing.T) {
	long := strings.Repeat("a", 245) + ":1" // valid (library/ and 245 characters), but too long to prefix
	for _, c := range []struct {
		requested, image, says string
	}{
		{"foo:1", "styrmin.local/no-substitute/foo:1", "no image on the local cluster stands in for foo:1; the local cluster builds postgres, redis"},
		{"quay.io/team/postgres:16", "styrmin.local/no-substitute/quay.io/team/postgres:16", "stands in for quay.io/team/postgres:16;"},
		{"busybox@" + digest, "styrmin.local/no-substitute/busybox@" + digest, "stands in for busybox@" + digest},
		{long, "styrmin.local/no-substitute", "stands in for " + long},
	} {
		t.Run(c.requested[:min(len(c.requested), 30)], func(t *testing.T) {
			got, err := applied(t, podOf(c.requested), mustRules(t))
			if err != nil {
				t.Fatal(err)
			}
			container := got.Spec.Containers[0]
			if container.Image != c.image || container.ImagePullPolicy != corev1.PullNever {
				t.Errorf("container runs %s with pull policy %s, want %s with Never", container.Image, container.ImagePullPolicy, c.image)
			}
			entries := substitutions(t, got)
			if len(entries) != 1 || entries[0].Image != "" || entries[0].Requested != c.requested || !strings.Contains(entries[0].Runs, c.says) {
				t.Errorf("annotation %+v, want one entry without image whose runs says %q", entries, c.says)
			}
		})
	}
}

func TestPodPatchKeepsAnInvalidReferenceAndSaysWhy(t *testing.T) {
	for _, requested := range []string{"Postgres:16", "postgres:16:17", "postgres@sha256:short", " postgres", strings.Repeat("x", 300)} {
		t.Run(requested[:min(len(requested), 30)], func(t *testing.T) {
			got, err := applied(t, podOf(requested), mustRules(t))
			if err != nil {
				t.Fatal(err)
			}
			c := got.Spec.Containers[0]
			if c.Image != requested || c.ImagePullPolicy != corev1.PullNever {
				t.Errorf("container runs %q with pull policy %s, want the request unchanged with Never", c.Image, c.ImagePullPolicy)
			}
			entries := substitutions(t, got)
			if len(entries) != 1 || entries[0].Image != "" || !strings.Contains(entries[0].Runs, "is not an image reference") {
				t.Errorf("annotation %+v, want one entry that says the reference is invalid", entries)
			}
		})
	}
}

func TestPodPatchLeavesLocalImagesAsTheyAre(t *testing.T) {
	pod := podOf("styrmin.local/hello:1", "styrmin.local/pause:1")
	ops, err := PodPatch(pod, mustRules(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 0 {
		t.Errorf("a pod of local images got the patch %+v, want none", ops)
	}
}

func TestPodPatchAnnotationIsTheWebhooksOwn(t *testing.T) {
	forged := `[{"container":"c0","requested":"postgres:17","image":"styrmin.local/postgres:17","runs":"PostgreSQL 17"}]`
	for _, c := range []struct {
		name   string
		images []string
		want   []substitute.Substitution
	}{
		{"replaced", []string{"redis:7.2"}, []substitute.Substitution{{Container: "c0", Requested: "redis:7.2", Image: "styrmin.local/redis:7", Runs: "Debian Redis 7.0.15"}}},
		{"removed when nothing is substituted", []string{"styrmin.local/hello:1"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := podOf(c.images...)
			pod.Annotations = map[string]string{substitute.Annotation: forged, "other": "kept"}
			got, err := applied(t, pod, mustRules(t))
			if err != nil {
				t.Fatal(err)
			}
			if entries := substitutions(t, got); !equal(entries, c.want) {
				t.Errorf("annotation %+v, want %+v", entries, c.want)
			}
			if got.Annotations["other"] != "kept" {
				t.Errorf("annotations %v lost another annotation", got.Annotations)
			}
		})
	}
}

func TestPodPatchCoversInitContainersInOrder(t *testing.T) {
	pod := podOf("styrmin.local/hello:1", "redis")
	pod.Spec.InitContainers = []corev1.Container{{Name: "init-db", Image: "postgres:16"}, {Name: "init-x", Image: "nginx:1.27"}}
	got, err := applied(t, pod, mustRules(t))
	if err != nil {
		t.Fatal(err)
	}
	images := []string{got.Spec.InitContainers[0].Image, got.Spec.InitContainers[1].Image, got.Spec.Containers[0].Image, got.Spec.Containers[1].Image}
	want := []string{"styrmin.local/postgres:15", "styrmin.local/no-substitute/nginx:1.27", "styrmin.local/hello:1", "styrmin.local/redis:7"}
	if fmt.Sprint(images) != fmt.Sprint(want) {
		t.Errorf("images %v, want %v", images, want)
	}
	var containers []string
	for _, e := range substitutions(t, got) {
		containers = append(containers, e.Container)
	}
	if fmt.Sprint(containers) != "[init-db init-x c1]" {
		t.Errorf("annotation entries for %v, want init-db, init-x, c1", containers)
	}
	if got.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("the local image's pull policy became %s", got.Spec.Containers[0].ImagePullPolicy)
	}
}

func TestPodPatchManyContainers(t *testing.T) {
	fits := make([]string, 300)
	for i := range fits {
		fits[i] = fmt.Sprintf("postgres:16.%d", i)
	}
	got, err := applied(t, podOf(fits...), mustRules(t))
	if err != nil {
		t.Fatalf("300 containers: %v", err)
	}
	if entries := substitutions(t, got); len(entries) != 300 || got.Spec.Containers[299].Image != "styrmin.local/postgres:15" {
		t.Errorf("300 containers: %d entries, last image %s", len(entries), got.Spec.Containers[299].Image)
	}

	tooMany := make([]string, 3000)
	for i := range tooMany {
		tooMany[i] = "postgres:16"
	}
	if _, err := PodPatch(podOf(tooMany...), mustRules(t)); err == nil || !strings.Contains(err.Error(), "3000 containers") {
		t.Errorf("3000 containers: error %v, want one that says the substitutions do not fit", err)
	}
	huge := strings.Repeat("h", 1<<20)
	if _, err := PodPatch(podOf(huge), mustRules(t)); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("a 1 MiB image name: error %v, want one that says the substitutions do not fit", err)
	}
}

func TestNewRulesRefusesRulesThatCouldNotMatchOrLie(t *testing.T) {
	good := testRules[0]
	for _, c := range []struct {
		name string
		rule substitute.Rule
		says string
	}{
		{"bare name", substitute.Rule{Repository: "postgres", Image: good.Image, Runs: good.Runs}, "normalized"},
		{"tagged", substitute.Rule{Repository: "docker.io/library/postgres:16", Image: good.Image, Runs: good.Runs}, "without tag"},
		{"not a repository", substitute.Rule{Repository: "Postgres", Image: good.Image, Runs: good.Runs}, "not an image repository"},
		{"remote image", substitute.Rule{Repository: good.Repository, Image: "docker.io/library/postgres:15", Runs: good.Runs}, "not an image under styrmin.local/"},
		{"nothing runs", substitute.Rule{Repository: good.Repository, Image: good.Image, Runs: " "}, "what runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := NewRules([]substitute.Rule{c.rule}); err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %v, want one that says %q", err, c.says)
			}
		})
	}
	if _, err := NewRules([]substitute.Rule{good, good}); err == nil || !strings.Contains(err.Error(), "two rules") {
		t.Errorf("a repository twice: error %v", err)
	}
}

func TestNoRulesSaysTheClusterBuildsNothing(t *testing.T) {
	rules, err := NewRules(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := applied(t, podOf("postgres:16"), rules)
	if err != nil {
		t.Fatal(err)
	}
	if entries := substitutions(t, got); len(entries) != 1 || !strings.HasSuffix(entries[0].Runs, "the local cluster builds no image yet") {
		t.Errorf("annotation %+v", entries)
	}
}

func equal(a, b []substitute.Substitution) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
