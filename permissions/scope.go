package permissions

// The scope of the kinds Styrmin knows, by API group and kind. A kind in
// neither list (a custom resource, a kind newer than this list) is of unknown
// scope: it needs an admin's approval as a cluster-scoped kind does, because
// nothing proves it stays in the release's namespace.
var (
	clusterKinds = kindSet(
		"/Namespace", "/Node", "/PersistentVolume", "/ComponentStatus",
		"rbac.authorization.k8s.io/ClusterRole", "rbac.authorization.k8s.io/ClusterRoleBinding",
		"apiextensions.k8s.io/CustomResourceDefinition",
		"apiregistration.k8s.io/APIService",
		"storage.k8s.io/StorageClass", "storage.k8s.io/CSIDriver", "storage.k8s.io/CSINode",
		"storage.k8s.io/VolumeAttachment", "storage.k8s.io/VolumeAttributesClass",
		"scheduling.k8s.io/PriorityClass",
		"admissionregistration.k8s.io/ValidatingWebhookConfiguration",
		"admissionregistration.k8s.io/MutatingWebhookConfiguration",
		"admissionregistration.k8s.io/ValidatingAdmissionPolicy",
		"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
		"admissionregistration.k8s.io/MutatingAdmissionPolicy",
		"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
		"node.k8s.io/RuntimeClass", "networking.k8s.io/IngressClass",
		"networking.k8s.io/IPAddress", "networking.k8s.io/ServiceCIDR",
		"flowcontrol.apiserver.k8s.io/FlowSchema", "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
		"certificates.k8s.io/CertificateSigningRequest", "certificates.k8s.io/ClusterTrustBundle",
		"authentication.k8s.io/TokenReview", "authentication.k8s.io/SelfSubjectReview",
		"authorization.k8s.io/SubjectAccessReview", "authorization.k8s.io/SelfSubjectAccessReview",
		"authorization.k8s.io/SelfSubjectRulesReview",
		"resource.k8s.io/DeviceClass", "resource.k8s.io/ResourceSlice",
		"internal.apiserver.k8s.io/StorageVersion", "storagemigration.k8s.io/StorageVersionMigration",
	)
	namespacedKinds = kindSet(
		"/ConfigMap", "/Secret", "/Service", "/ServiceAccount", "/Pod", "/PodTemplate",
		"/PersistentVolumeClaim", "/Endpoints", "/LimitRange", "/ResourceQuota",
		"/ReplicationController", "/Event", "/Binding",
		"apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "apps/ControllerRevision",
		"batch/Job", "batch/CronJob",
		"autoscaling/HorizontalPodAutoscaler", "policy/PodDisruptionBudget",
		"networking.k8s.io/Ingress", "networking.k8s.io/NetworkPolicy",
		"discovery.k8s.io/EndpointSlice", "coordination.k8s.io/Lease",
		"events.k8s.io/Event", "storage.k8s.io/CSIStorageCapacity",
		"rbac.authorization.k8s.io/Role", "rbac.authorization.k8s.io/RoleBinding",
		"authorization.k8s.io/LocalSubjectAccessReview",
		"resource.k8s.io/ResourceClaim", "resource.k8s.io/ResourceClaimTemplate",
	)
)

// kindSet is a set of "group/kind" keys.
func kindSet(keys ...string) map[string]bool {
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	return set
}

// scopeOf says whether a kind of group is cluster-scoped, namespaced, or
// of a scope Styrmin does not know.
func scopeOf(group, kind string) Scope {
	switch key := group + "/" + kind; {
	case clusterKinds[key]:
		return ScopeCluster
	case namespacedKinds[key]:
		return ScopeNamespace
	}
	return ScopeUnknown
}
