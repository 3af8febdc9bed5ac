{{/* The base name of every resource: <release>-hello-web, at most 40 characters like the other bundled drivers. */}}
{{- define "hello-web.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select the web pods; the driver's `web` component matches them. */}}
{{- define "hello-web.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: web
{{- end -}}

{{/* Standard labels of every resource. */}}
{{- define "hello-web.labels" -}}
{{ include "hello-web.selectorLabels" . }}
app.kubernetes.io/version: {{ include "hello-web.imageTag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: styrmin
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.styrmin.deployment }}
styrmin.io/deployment: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* The nginx image tag: the application version, else the chart's appVersion. */}}
{{- define "hello-web.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion -}}
{{- end -}}
