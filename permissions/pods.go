package permissions

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// What a pod may need beyond Pod Security's baseline level: the items of
// Set.PodSecurity, in fixed words, besides "capability NAME" and
// "sysctl NAME" (PodCapability, PodSysctl). They are every check of
// baseline, so a namespace may be relaxed to the privileged level once an
// admin approved them (Set.Privileged).
const (
	PodPrivileged  = "privileged container"
	PodHostNetwork = "host network"
	PodHostPID     = "host PID"
	PodHostIPC     = "host IPC"
	PodHostPath    = "hostPath volume"
	PodHostPort    = "host port"
	// PodHostProcess is a Windows container run as a host process.
	PodHostProcess = "Windows host process"
	// PodProcMount is a container's /proc mount type other than Default.
	PodProcMount = "unmasked /proc"
	// PodSELinux is an SELinux type other than the container types, or an
	// SELinux user or role.
	PodSELinux = "SELinux options"
	// PodSeccomp is a seccomp profile other than the runtime's default or a
	// local one: Unconfined.
	PodSeccomp = "unconfined seccomp"
	// PodAppArmor is an AppArmor profile other than the runtime's default
	// or a local one (Unconfined, say), as a field or an annotation.
	PodAppArmor = "AppArmor override"
)

// podWords are the fixed words of pod security needs.
var podWords = []string{PodPrivileged, PodHostNetwork, PodHostPID, PodHostIPC, PodHostPath, PodHostPort,
	PodHostProcess, PodProcMount, PodSELinux, PodSeccomp, PodAppArmor}

// The prefixes of the pod security needs that name what they need.
const (
	// PodCapability prefixes an added Linux capability outside baseline's,
	// without CAP_ and upper-case: "capability NET_ADMIN".
	PodCapability = "capability "
	// PodSysctl prefixes a sysctl outside baseline's safe ones: "sysctl kernel.msgmax".
	PodSysctl = "sysctl "
)

// baselineCapabilities are the capabilities Pod Security's baseline lets a
// container add.
var baselineCapabilities = []string{"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}

// baselineSysctls are the sysctls Pod Security's baseline lets a pod set.
var baselineSysctls = []string{"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
	"net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
	"net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
	"net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}

// baselineSELinuxTypes are the SELinux types baseline allows ("" is unset).
var baselineSELinuxTypes = []string{"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}

// appArmorAnnotation prefixes the annotation that sets a container's AppArmor profile.
const appArmorAnnotation = "container.apparmor.security.beta.kubernetes.io/"

// Privileged reports whether the set holds any PodSecurity item: its pods
// need more than Pod Security's baseline level.
func (s Set) Privileged() bool {
	return len(s.PodSecurity) > 0
}

// capabilityName is a capability as the runtime reads it: upper-case, without CAP_.
func capabilityName(c string) string {
	return strings.TrimPrefix(strings.ToUpper(c), "CAP_")
}

// validPodSecurity reports whether p is a pod security need Parse can
// return.
func validPodSecurity(p string) bool {
	if slices.Contains(podWords, p) {
		return true
	}
	if c, ok := strings.CutPrefix(p, PodCapability); ok {
		return c != "" && c == capabilityName(c) && !strings.ContainsAny(c, " \t") && !slices.Contains(baselineCapabilities, c)
	}
	if name, ok := strings.CutPrefix(p, PodSysctl); ok {
		return name != "" && !strings.ContainsAny(name, " \t") && !slices.Contains(baselineSysctls, name)
	}
	return false
}

// podTemplates returns the pod specs of an object of a kind that runs
// pods (with their pods' metadata), decoded as Kubernetes does.
func podTemplates(group, kind string, raw []byte) ([]corev1.PodTemplateSpec, error) {
	var out []corev1.PodTemplateSpec
	var err error
	switch group + "/" + kind {
	case "/Pod":
		var pod corev1.PodTemplateSpec // a Pod's metadata and spec, as in a template
		err = kjson.UnmarshalCaseSensitivePreserveInts(raw, &pod)
		out = append(out, pod)
	case "/PodTemplate":
		var t struct {
			Template corev1.PodTemplateSpec `json:"template"`
		}
		err = kjson.UnmarshalCaseSensitivePreserveInts(raw, &t)
		out = append(out, t.Template)
	case "apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "/ReplicationController", "batch/Job":
		var o struct {
			Spec struct {
				Template *corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		err = kjson.UnmarshalCaseSensitivePreserveInts(raw, &o)
		if o.Spec.Template != nil {
			out = append(out, *o.Spec.Template)
		}
	case "batch/CronJob":
		var o struct {
			Spec struct {
				JobTemplate struct {
					Spec struct {
						Template corev1.PodTemplateSpec `json:"template"`
					} `json:"spec"`
				} `json:"jobTemplate"`
			} `json:"spec"`
		}
		err = kjson.UnmarshalCaseSensitivePreserveInts(raw, &o)
		out = append(out, o.Spec.JobTemplate.Spec.Template)
	}
	return out, err
}

// podNeeds is what a pod template needs beyond Pod Security's baseline level.
func podNeeds(t corev1.PodTemplateSpec) []string {
	var out []string
	need := func(ok bool, item string) {
		if ok {
			out = append(out, item)
		}
	}
	spec := t.Spec
	need(spec.HostNetwork, PodHostNetwork)
	need(spec.HostPID, PodHostPID)
	need(spec.HostIPC, PodHostIPC)
	need(slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.HostPath != nil }), PodHostPath)
	if sc := spec.SecurityContext; sc != nil {
		out = append(out, optionNeeds(sc.WindowsOptions, sc.SELinuxOptions, sc.SeccompProfile, sc.AppArmorProfile)...)
		for _, s := range sc.Sysctls {
			need(!slices.Contains(baselineSysctls, s.Name), PodSysctl+s.Name)
		}
	}
	for key, value := range t.Annotations {
		need(strings.HasPrefix(key, appArmorAnnotation) && value != "" && value != "runtime/default" && !strings.HasPrefix(value, "localhost/"), PodAppArmor)
	}
	containers := slices.Concat(spec.InitContainers, spec.Containers)
	for _, e := range spec.EphemeralContainers {
		containers = append(containers, corev1.Container{Ports: e.Ports, SecurityContext: e.SecurityContext})
	}
	for _, c := range containers {
		need(slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.HostPort != 0 }), PodHostPort)
		sc := c.SecurityContext
		if sc == nil {
			continue
		}
		need(sc.Privileged != nil && *sc.Privileged, PodPrivileged)
		need(sc.ProcMount != nil && *sc.ProcMount != corev1.DefaultProcMount, PodProcMount)
		out = append(out, optionNeeds(sc.WindowsOptions, sc.SELinuxOptions, sc.SeccompProfile, sc.AppArmorProfile)...)
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				name := capabilityName(string(c))
				need(!slices.Contains(baselineCapabilities, name), PodCapability+name)
			}
		}
	}
	return out
}

// optionNeeds is what a pod's or a container's security options need
// beyond baseline.
func optionNeeds(w *corev1.WindowsSecurityContextOptions, se *corev1.SELinuxOptions, sec *corev1.SeccompProfile, aa *corev1.AppArmorProfile) []string {
	var out []string
	if w != nil && w.HostProcess != nil && *w.HostProcess {
		out = append(out, PodHostProcess)
	}
	if se != nil && (!slices.Contains(baselineSELinuxTypes, se.Type) || se.User != "" || se.Role != "") {
		out = append(out, PodSELinux)
	}
	if sec != nil && sec.Type != corev1.SeccompProfileTypeRuntimeDefault && sec.Type != corev1.SeccompProfileTypeLocalhost {
		out = append(out, PodSeccomp)
	}
	if aa != nil && aa.Type != corev1.AppArmorProfileTypeRuntimeDefault && aa.Type != corev1.AppArmorProfileTypeLocalhost {
		out = append(out, PodAppArmor)
	}
	return out
}
