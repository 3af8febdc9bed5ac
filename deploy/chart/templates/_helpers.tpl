{{/* The release's base name for every object. */}}
{{- define "styrmin.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{ else }}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}{{ end }}
{{- end }}

{{- define "styrmin.labels" -}}
app.kubernetes.io/name: styrmin
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* Selector labels of one component (web, worker, postgresql). */}}
{{- define "styrmin.selector" -}}
app.kubernetes.io/name: styrmin
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "styrmin.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "styrmin.serviceAccountName" -}}
{{ .Values.serviceAccount.name | default (include "styrmin.fullname" .) }}
{{- end }}

{{/* The Secret holding the database URL, and its key. */}}
{{- define "styrmin.databaseSecret" -}}
{{- if .Values.database.existingSecret }}{{ .Values.database.existingSecret }}{{ else }}{{ include "styrmin.fullname" . }}{{ end }}
{{- end }}

{{/* Fails rendering unless exactly one database is configured. */}}
{{- define "styrmin.checkDatabase" -}}
{{- $n := 0 }}
{{- if .Values.database.url }}{{ $n = add1 $n }}{{ end }}
{{- if .Values.database.existingSecret }}{{ $n = add1 $n }}{{ end }}
{{- if .Values.postgresql.enabled }}{{ $n = add1 $n }}{{ end }}
{{- if ne $n 1 }}
{{- fail "styrmin: set exactly one database: database.url, database.existingSecret, or postgresql.enabled=true (evaluation only)" }}
{{- end }}
{{- end }}

{{/* The environment every Styrmin container (serve, worker, migrate) shares. */}}
{{- define "styrmin.env" -}}
- name: STYRMIN_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "styrmin.databaseSecret" . }}
      key: {{ .Values.database.key }}
- name: STYRMIN_SECRET_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secretKey.existingSecret | default (include "styrmin.fullname" .) }}
      key: {{ .Values.secretKey.key }}
- name: STYRMIN_LOG_FORMAT
  value: json
- name: HOME
  value: /tmp
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The API URL driver actions call back on. */}}
{{- define "styrmin.apiURL" -}}
{{ .Values.apiURL | default (printf "http://%s.%s.svc:%d" (include "styrmin.fullname" .) .Release.Namespace (int .Values.service.port)) }}
{{- end }}

{{/* The action-runner image of the pod action runtime. */}}
{{- define "styrmin.actionImage" -}}
{{ .Values.actions.image.repository }}:{{ .Values.actions.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The URL at which action pods reach the action API: the Service by its cluster DNS name. */}}
{{- define "styrmin.actionAPIURL" -}}
{{ .Values.actions.apiURL | default (printf "http://%s.%s.svc.cluster.local:%d" (include "styrmin.fullname" .) .Release.Namespace (int .Values.service.port)) }}
{{- end }}

{{/* Pod and container security: non-root, read-only root filesystem, no privileges. */}}
{{- define "styrmin.podSecurity" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}
{{- define "styrmin.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end }}

{{- define "styrmin.scheduling" -}}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- /* What Styrmin needs to act as each namespace's deployer (docs/security.md): impersonate it
(by name when the namespaces are listed) and keep the Helm records policy. Its argument is a list
holding rbac.namespaces. */}}
{{- define "styrmin.deployerRules" -}}
{{- $namespaces := index . 0 -}}
- apiGroups: [""]
  resources: ["users"]
  verbs: ["impersonate"]
  {{- if $namespaces }}
  resourceNames:
    {{- range $namespaces }}
    - styrmin:deployer:{{ . }}
    {{- end }}
  {{- end }}
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["validatingadmissionpolicies", "validatingadmissionpolicybindings"]
  verbs: ["get", "create", "update"]
{{- end }}
