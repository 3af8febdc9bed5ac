package requests_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/requests"
)

// container is a container's YAML with resources (indented for a pod spec).
func container(name, resources string) string {
	return fmt.Sprintf("\n  - name: %s\n    image: app\n    resources: %s", name, resources)
}

// workload is an object of kind whose pod template has containers, with
// extra spec fields.
func workload(apiVersion, kind, spec, containers string) string {
	return fmt.Sprintf("---\napiVersion: %s\nkind: %s\nmetadata:\n  name: w\nspec:\n  %s\n  template:\n    spec:\n      containers:%s\n",
		apiVersion, kind, spec, strings.ReplaceAll(containers, "\n", "\n    "))
}

// small is a container requesting 100m and 64Mi.
var small = container("app", "{requests: {cpu: 100m, memory: 64Mi}}")

func TestSumCountsEveryPodAsKubernetesSchedulesIt(t *testing.T) {
	t.Parallel()
	const mi = 1 << 20
	for _, tc := range []struct {
		name, manifest string
		want           requests.Totals
	}{
		{"a pod once", "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:" + small, requests.Totals{CPUMillis: 100, MemoryBytes: 64 * mi}},
		{"a deployment times its replicas", workload("apps/v1", "Deployment", "replicas: 3", small), requests.Totals{CPUMillis: 300, MemoryBytes: 192 * mi}},
		{"a deployment without replicas runs one", workload("apps/v1", "Deployment", "minReadySeconds: 0", small), requests.Totals{CPUMillis: 100, MemoryBytes: 64 * mi}},
		{"a deployment at 0 replicas requests nothing", workload("apps/v1", "Deployment", "replicas: 0", small), requests.Totals{}},
		{"a statefulset", workload("apps/v1", "StatefulSet", "replicas: 2", small), requests.Totals{CPUMillis: 200, MemoryBytes: 128 * mi}},
		{"a replicaset", workload("apps/v1", "ReplicaSet", "replicas: 2", small), requests.Totals{CPUMillis: 200, MemoryBytes: 128 * mi}},
		{"a replication controller", workload("v1", "ReplicationController", "replicas: 4", small), requests.Totals{CPUMillis: 400, MemoryBytes: 256 * mi}},
		{"a daemonset once (per node)", workload("apps/v1", "DaemonSet", "minReadySeconds: 0", small), requests.Totals{CPUMillis: 100, MemoryBytes: 64 * mi}},
		{"a job times its parallelism", workload("batch/v1", "Job", "parallelism: 5", small), requests.Totals{CPUMillis: 500, MemoryBytes: 320 * mi}},
		{"a cronjob's job template", "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '@daily'\n  jobTemplate:\n    spec:\n      parallelism: 2\n      template:\n        spec:\n          containers:" +
			strings.ReplaceAll(small, "\n", "\n        "), requests.Totals{CPUMillis: 200, MemoryBytes: 128 * mi}},
		{"every container of a pod", workload("apps/v1", "Deployment", "replicas: 2", small+container("side", "{requests: {cpu: '1', memory: 1Gi}}")),
			requests.Totals{CPUMillis: 2200, MemoryBytes: 2 * (64*mi + 1024*mi)}},
		{"a limit without a request counts the limit", workload("apps/v1", "Deployment", "minReadySeconds: 0", container("app", "{limits: {cpu: 250m, memory: 128Mi}}")),
			requests.Totals{CPUMillis: 250, MemoryBytes: 128 * mi}},
		{"a request beside a limit counts the request", workload("apps/v1", "Deployment", "minReadySeconds: 0", container("app", "{requests: {cpu: 100m}, limits: {cpu: 2, memory: 128Mi}}")),
			requests.Totals{CPUMillis: 100, MemoryBytes: 128 * mi}},
		{"the largest init container when it needs more than the containers",
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:" + small + "\n  initContainers:" +
				container("migrate", "{requests: {cpu: '2', memory: 16Mi}}") + container("wait", "{requests: {cpu: 50m, memory: 1Gi}}"),
			requests.Totals{CPUMillis: 2000, MemoryBytes: 1024 * mi}},
		{"a sidecar init container counts beside the containers",
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:" + small + "\n  initContainers:" +
				container("proxy", "{requests: {cpu: 200m, memory: 32Mi}}") + "\n    restartPolicy: Always",
			requests.Totals{CPUMillis: 300, MemoryBytes: 96 * mi}},
		{"a pod-level request above its containers' and the overhead",
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resources: {requests: {cpu: '1'}}\n  overhead: {cpu: 10m, memory: 1Mi}\n  containers:" + small,
			requests.Totals{CPUMillis: 1010, MemoryBytes: 65 * mi}},
		{"the items of a list", "---\napiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimPrefix(workload("apps/v1", "Deployment", "replicas: 2", small), "---\n"), "\n", "\n  "),
			requests.Totals{CPUMillis: 200, MemoryBytes: 128 * mi}},
		{"JSON documents", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":0.5,"memory":"1Gi"}}}]}}`,
			requests.Totals{CPUMillis: 500, MemoryBytes: 1024 * mi}},
		{"several objects together", workload("apps/v1", "Deployment", "replicas: 2", small) + workload("apps/v1", "StatefulSet", "replicas: 1", small),
			requests.Totals{CPUMillis: 300, MemoryBytes: 192 * mi}},
		{"unknown kinds request nothing", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n---\napiVersion: example.com/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: 100}\n",
			requests.Totals{}},
		{"a container without resources requests nothing", workload("apps/v1", "Deployment", "replicas: 9", container("app", "{}")), requests.Totals{}},
		{"an empty manifest", "", requests.Totals{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := requests.Sum(tc.manifest)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestSumRefusesWhatItCannotCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"a quantity that does not parse", workload("apps/v1", "Deployment", "minReadySeconds: 0", container("app", "{requests: {cpu: lots}}")),
			`The chart's rendered manifest holds the Deployment "w", whose pods' requests cannot be counted: quantities must match the regular expression`},
		{"a negative request", workload("apps/v1", "Deployment", "minReadySeconds: 0", container("app", "{requests: {memory: -1Gi}}")),
			`The chart's rendered manifest holds the Deployment "w", whose pods' requests cannot be counted: container app: a negative memory of -1Gi.`},
		{"negative replicas", workload("apps/v1", "StatefulSet", "replicas: -3", small),
			`The chart's rendered manifest holds the StatefulSet "w", whose pods' requests cannot be counted: it asks for -3 pods.`},
		{"replicas past int32", workload("apps/v1", "Deployment", "replicas: 5000000000", small),
			`The chart's rendered manifest holds the Deployment "w", whose pods' requests cannot be counted: json: cannot unmarshal number 5000000000`},
		{"a manifest that does not parse", "---\nkind: [\n", "The chart's rendered manifest does not parse"},
		{"lists nested too deep", "---\nkind: List\nitems:\n- kind: List\n  items:\n  - kind: List\n    items:\n    - kind: List\n      items:\n      - kind: List\n        items: []\n",
			"The chart's rendered manifest nests lists more than 4 deep."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := requests.Sum(tc.manifest)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
			require.Contains(t, styrmin.ErrorMessage(err), tc.want)
		})
	}
}

func TestSumRefusesAManifestPastItsBudget(t *testing.T) {
	t.Parallel()
	_, err := requests.Sum(strings.Repeat("#", requests.MaxManifestBytes+1))
	require.Equal(t, fmt.Sprintf("The chart renders %d bytes, more than the 32 MiB Styrmin reads to count what its pods request.", requests.MaxManifestBytes+1), styrmin.ErrorMessage(err))

	many := strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", requests.MaxObjects+1)
	_, err = requests.Sum(many)
	require.Equal(t, "The chart renders more than 10000 objects, more than Styrmin reads to count what its pods request.", styrmin.ErrorMessage(err))
}

func TestSumSaturatesFiguresPastInt64(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, manifest string }{
		{"a quantity past int64 as millicores", workload("apps/v1", "Deployment", "minReadySeconds: 0", container("app", "{requests: {cpu: 1e30, memory: 1e30}}"))},
		{"the largest quantity Kubernetes reads", workload("apps/v1", "Deployment", "minReadySeconds: 0", container("app", "{requests: {cpu: 8Ei, memory: 8Ei}}"))},
		{"replicas in the billions of a large request", workload("apps/v1", "Deployment", "replicas: 2000000000", container("app", "{requests: {cpu: 9000000000k, memory: 9000Pi}}"))},
		{"containers that add up past int64", workload("apps/v1", "Deployment", "minReadySeconds: 0",
			container("a", "{requests: {cpu: 9000000T, memory: 7Ei}}")+container("b", "{requests: {cpu: 9000000T, memory: 7Ei}}"))},
		{"objects that add up past int64", strings.Repeat(workload("apps/v1", "Deployment", "replicas: 1000000000", container("app", "{requests: {cpu: 4000000k, memory: 4Ei}}")), 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := requests.Sum(tc.manifest)
			require.NoError(t, err)
			require.Equal(t, requests.Totals{CPUMillis: math.MaxInt64, MemoryBytes: math.MaxInt64}, got, "never wrapped negative")
			require.True(t, got.Saturated())
		})
	}
}

func TestSumReadsKeysCaseSensitivelyAsKubernetes(t *testing.T) {
	t.Parallel()
	got, err := requests.Sum(workload("apps/v1", "Deployment", "Replicas: 50", small))
	require.NoError(t, err)
	require.Equal(t, int64(100), got.CPUMillis, "Kubernetes ignores Replicas and runs one pod")
}
