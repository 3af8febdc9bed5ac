{{/* The base name of every resource: <release>-postgresql, at most 40 characters so suffixed names stay valid. */}}
{{- define "postgresql.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select the server pod; the driver's `primary` component matches them. */}}
{{- define "postgresql.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: primary
{{- end -}}

{{/* Standard labels of every resource. */}}
{{- define "postgresql.labels" -}}
{{ include "postgresql.selectorLabels" . }}
app.kubernetes.io/version: {{ include "postgresql.imageTag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: styrmin
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.styrmin.deployment }}
styrmin.io/deployment: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* The postgres image tag: 16.4.0 becomes 16.4, the form the image is published under. */}}
{{- define "postgresql.imageTag" -}}
{{- regexReplaceAll "^([0-9]+\\.[0-9]+)\\.0$" (.Values.image.tag | default .Chart.AppVersion | toString) "${1}" -}}
{{- end -}}
