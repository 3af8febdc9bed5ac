package handlerstest

import "testing/fstest"

// Granter is a driver bundle (folder "granter") whose chart binds its
// ServiceAccount to cluster-admin; its parameter read_nodes (false by
// default) adds a ClusterRole that lists nodes, which the default values do
// not render.
var Granter = fstest.MapFS{
	"granter/driver.styrmin.yml": {Data: []byte(`apiVersion: styrmin.io/v1
kind: Driver
metadata: {name: granter}
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  info: {title: Granter, description: A driver whose chart grants itself cluster-admin.}
  helm:
    main:
      location: ./chart
      version: 1.0.0
      values: |
        readNodes: {{ .Parameters.read_nodes }}
  parameters:
    - {name: read_nodes, type: boolean, default: false}
`)},
	"granter/chart/Chart.yaml": {Data: []byte("apiVersion: v2\nname: granter\nversion: 1.0.0\nappVersion: 1.0.0\n")},
	"granter/chart/templates/binding.yaml": {Data: []byte(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "{{ .Release.Name }}-admin"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}
{{- if .Values.readNodes }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-nodes"}
rules: [{apiGroups: [""], resources: [nodes], verbs: [list]}]
{{- end }}
`)},
}
