package permissions_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/permissions"
)

// TestPodsThatNeedMoreThanBaselineNeedApproval: a chart's pods, whatever
// object runs them, that need more than Pod Security's baseline level
// (the host's namespaces, files and ports, privileges) need an admin's
// approval, named in fixed words.
func TestPodsThatNeedMoreThanBaselineNeedApproval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, manifest string
		want           []string
	}{
		{"a privileged init container in a Deployment", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      initContainers: [{name: i, image: busybox, securityContext: {privileged: true}}]
      containers: [{name: c, image: busybox}]`,
			[]string{permissions.PodPrivileged}},
		{"a DaemonSet on the host's network with its root mounted", `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: x}
spec:
  template:
    spec:
      hostNetwork: true
      volumes: [{name: root, hostPath: {path: /}}]
      containers: [{name: c, image: busybox, volumeMounts: [{name: root, mountPath: /host}]}]`,
			[]string{permissions.PodHostNetwork, permissions.PodHostPath}},
		{"a CronJob in the host's PID namespace", `
apiVersion: batch/v1
kind: CronJob
metadata: {name: x}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          hostPID: true
          containers: [{name: c, image: busybox}]`,
			[]string{permissions.PodHostPID}},
		{"a Job in the host's IPC namespace", `
apiVersion: batch/v1
kind: Job
metadata: {name: x}
spec:
  template:
    spec:
      hostIPC: true
      containers: [{name: c, image: busybox}]`,
			[]string{permissions.PodHostIPC}},
		{"a StatefulSet on a host port", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: x}
spec:
  template:
    spec:
      containers: [{name: c, image: busybox, ports: [{containerPort: 80, hostPort: 80}]}]`,
			[]string{permissions.PodHostPort}},
		{"a ReplicaSet that adds capabilities, with and without CAP_, in any case", `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: x}
spec:
  template:
    spec:
      containers:
      - name: c
        image: busybox
        securityContext: {capabilities: {add: [NET_ADMIN, cap_sys_admin, CHOWN, cap_net_bind_service], drop: [ALL]}}`,
			[]string{"capability NET_ADMIN", "capability SYS_ADMIN"}},
		{"a ReplicationController that adds every capability", `
apiVersion: v1
kind: ReplicationController
metadata: {name: x}
spec:
  template:
    spec:
      containers: [{name: c, image: busybox, securityContext: {capabilities: {add: [ALL]}}}]`,
			[]string{"capability ALL"}},
		{"a Pod with a privileged ephemeral container", `
apiVersion: v1
kind: Pod
metadata: {name: x}
spec:
  containers: [{name: c, image: busybox}]
  ephemeralContainers: [{name: e, image: busybox, securityContext: {privileged: true}}]`,
			[]string{permissions.PodPrivileged}},
		{"a Pod hidden in a List", `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: x}
  spec:
    hostNetwork: true
    containers: [{name: c, image: busybox}]`,
			[]string{permissions.PodHostNetwork}},
		{"a PodTemplate", `
apiVersion: v1
kind: PodTemplate
metadata: {name: x}
template:
  spec:
    hostPID: true
    containers: [{name: c, image: busybox}]`,
			[]string{permissions.PodHostPID}},
		{"the rest of what baseline forbids", `
apiVersion: v1
kind: Pod
metadata:
  name: x
  annotations: {container.apparmor.security.beta.kubernetes.io/c: unconfined}
spec:
  securityContext:
    seccompProfile: {type: Unconfined}
    sysctls: [{name: kernel.msgmax, value: "65536"}, {name: net.ipv4.tcp_syncookies, value: "1"}]
  containers:
  - name: c
    image: busybox
    securityContext:
      procMount: Unmasked
      seLinuxOptions: {type: spc_t}
      windowsOptions: {hostProcess: true}`,
			[]string{permissions.PodAppArmor, permissions.PodProcMount, permissions.PodSELinux,
				permissions.PodSeccomp, permissions.PodHostProcess, "sysctl kernel.msgmax"}},
		{"an AppArmor profile set to Unconfined", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      containers: [{name: c, image: busybox, securityContext: {appArmorProfile: {type: Unconfined}}}]`,
			[]string{permissions.PodAppArmor}},
		{"what baseline allows", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    metadata:
      annotations: {container.apparmor.security.beta.kubernetes.io/c: runtime/default}
    spec:
      hostNetwork: false
      securityContext:
        seccompProfile: {type: RuntimeDefault}
        seLinuxOptions: {type: container_t, level: "s0:c123,c456"}
        sysctls: [{name: net.ipv4.ip_unprivileged_port_start, value: "0"}]
      volumes: [{name: data, emptyDir: {}}]
      containers:
      - name: c
        image: busybox
        ports: [{containerPort: 80}]
        securityContext: {privileged: false, procMount: Default, capabilities: {add: [NET_BIND_SERVICE]}}`,
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := permissions.Parse(tc.manifest, "ns1")
			require.NoError(t, err)
			require.ElementsMatch(t, tc.want, s.PodSecurity)
			require.Equal(t, tc.want != nil, s.Privileged())
			require.Equal(t, tc.want == nil, s.Empty(), s.Lines())
		})
	}
}

func TestPodSecurityItemsAreListedAndApprovedExactly(t *testing.T) {
	t.Parallel()
	need, err := permissions.Parse(`
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: x}
spec:
  template:
    spec:
      hostNetwork: true
      containers: [{name: c, image: busybox, securityContext: {privileged: true, capabilities: {add: [SYS_ADMIN]}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: other}
spec:
  hostNetwork: true
  containers: [{name: c, image: busybox}]`, "ns1")
	require.NoError(t, err)
	require.Equal(t, []string{
		"runs pods beyond Pod Security's baseline: capability SYS_ADMIN",
		"runs pods beyond Pod Security's baseline: host network",
		"runs pods beyond Pod Security's baseline: privileged container",
	}, need.Lines(), "each item once, sorted")

	approved := permissions.Set{PodSecurity: []string{permissions.PodHostNetwork, permissions.PodPrivileged}}
	require.Equal(t, []string{"capability SYS_ADMIN"}, permissions.Missing(need, approved).PodSecurity)
	require.True(t, permissions.Missing(need, permissions.Union(approved, need)).Empty())
	require.NoError(t, need.Validate())
}
