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

{{/* The worker's ServiceAccount (the action API's too). */}}
{{- define "styrmin.serviceAccountName" -}}
{{ .Values.serviceAccount.name | default (include "styrmin.fullname" .) }}
{{- end }}

{{/* The web pods' ServiceAccount: the worker's name with -web. */}}
{{- define "styrmin.webServiceAccountName" -}}
{{ include "styrmin.serviceAccountName" . }}-web
{{- end }}

{{/* The Secret of the keys: the user's (existingSecret) or the one the hook Job makes. */}}
{{- define "styrmin.keysSecret" -}}
{{ .Values.existingSecret | default (include "styrmin.fullname" .) }}
{{- end }}

{{/* The Secret holding the database URL (key database-url). */}}
{{- define "styrmin.databaseSecret" -}}
{{- if .Values.database.url }}{{ include "styrmin.fullname" . }}-database{{ else }}{{ include "styrmin.keysSecret" . }}{{ end }}
{{- end }}

{{/* Fails rendering unless exactly one database is configured. */}}
{{- define "styrmin.checkDatabase" -}}
{{- if and .Values.database.url .Values.postgresql.enabled }}
{{- fail "styrmin: set one database: database.url or postgresql.enabled=true (evaluation only), not both" }}
{{- end }}
{{- if not (or .Values.database.url .Values.postgresql.enabled .Values.existingSecret) }}
{{- fail "styrmin: set a database: database.url, existingSecret (its key database-url), or postgresql.enabled=true (evaluation only)" }}
{{- end }}
{{- end }}

{{/* The URL users reach Styrmin at: externalURL, else the Ingress's. */}}
{{- define "styrmin.externalURL" -}}
{{- if .Values.externalURL }}{{ .Values.externalURL }}
{{- else if .Values.ingress.enabled }}{{ if .Values.ingress.tlsSecretName }}https{{ else }}http{{ end }}://{{ .Values.ingress.host }}
{{- end }}
{{- end }}

{{/* Fails rendering when the Ingress is on and trustedProxies was not chosen (values.yaml says why). */}}
{{- define "styrmin.checkProxies" -}}
{{- if and .Values.ingress.enabled (kindIs "invalid" .Values.trustedProxies) }}
{{- fail "styrmin: with ingress.enabled, set trustedProxies to the CIDRs of the ingress controller's pods (e.g. the cluster's pod network, [\"10.244.0.0/16\"]) so that sign-in throttling keys on each client, or to [] to believe no proxy: the chart cannot find that network" }}
{{- end }}
{{- end }}

{{/* The environment every Styrmin container (serve, worker, migrate) shares. */}}
{{- define "styrmin.env" -}}
- name: STYRMIN_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "styrmin.databaseSecret" . }}
      key: database-url
- name: STYRMIN_SECRET_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "styrmin.keysSecret" . }}
      key: secret-key
- name: STYRMIN_LOG_FORMAT
  value: json
- name: HOME
  value: /tmp
{{- with include "styrmin.externalURL" . }}
- name: STYRMIN_EXTERNAL_URL
  value: {{ . | quote }}
{{- end }}
- name: STYRMIN_METRICS_ADDR
  value: "0.0.0.0:{{ .Values.metrics.port }}"
- name: STYRMIN_DEPLOYERS_NAMESPACE
  value: {{ include "styrmin.deployersNamespace" . | quote }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* A pod's metadata: labels and podAnnotations. Its argument is a dict of root, component and metrics (the pod serves /metrics: the metrics Service selects it). */}}
{{- define "styrmin.podMeta" -}}
metadata:
  labels:
    {{- include "styrmin.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
    {{- if .metrics }}
    styrmin.io/metrics: "true"
    {{- end }}
  {{- with .root.Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/* What every pod spec of the chart shares: pull secrets, security, scheduling. */}}
{{- define "styrmin.podSpec" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- include "styrmin.podSecurity" . | nindent 2 }}
{{- include "styrmin.scheduling" . }}
{{- end }}

{{/* The volumes of the web and worker pods, and their containers' mounts. */}}
{{- define "styrmin.volumes" -}}
volumes:
  - {name: tmp, emptyDir: {}}
  {{- with .Values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- define "styrmin.volumeMounts" -}}
volumeMounts:
  - {name: tmp, mountPath: /tmp}
  {{- with .Values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
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

{{/* The port of the action API's pods and Service. */}}
{{- define "styrmin.actionPort" -}}
8081
{{- end }}

{{/* The action API's Service by its cluster DNS name. */}}
{{- define "styrmin.actionServiceURL" -}}
{{ printf "http://%s-actions.%s.svc.cluster.local:%s" (include "styrmin.fullname" .) .Release.Namespace (include "styrmin.actionPort" .) }}
{{- end }}

{{/* The URL at which action pods reach the action API. */}}
{{- define "styrmin.actionAPIURL" -}}
{{ .Values.actions.apiURL | default (include "styrmin.actionServiceURL" .) }}
{{- end }}

{{/* The URL at which the worker's driver actions (child processes with the process runtime) reach the action API. */}}
{{- define "styrmin.workerAPIURL" -}}
{{ .Values.apiURL | default (include "styrmin.actionServiceURL" .) }}
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

{{/* The deployers' namespace: the worker's deployers (a ServiceAccount per namespace Styrmin deploys to) and nothing else; rbac.deployersNamespace, or the release's name and namespace with -deployers. */}}
{{- define "styrmin.deployersNamespace" -}}
{{- .Values.rbac.deployersNamespace | default (printf "%s-%s-deployers" (include "styrmin.fullname" .) .Release.Namespace | trunc 63 | trimSuffix "-") }}
{{- end }}

{{- /* A Role (or ClusterRole) of rules and its binding to one ServiceAccount of the release. Its
argument is a dict of root, kind (Role or ClusterRole), name, namespace (for a Role), rules and
serviceAccount. */}}
{{- define "styrmin.grant" }}
{{- $meta := dict "name" .name }}
{{- if .namespace }}{{ $_ := set $meta "namespace" .namespace }}{{ end }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ .kind }}
metadata:
  {{- toYaml $meta | nindent 2 }}
  labels:
    {{- include "styrmin.labels" .root | nindent 4 }}
rules:
  {{- toYaml .rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ .kind }}Binding
metadata:
  {{- toYaml $meta | nindent 2 }}
  labels:
    {{- include "styrmin.labels" .root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ .kind }}
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ .serviceAccount }}
    namespace: {{ .root.Release.Namespace }}
{{- end }}
