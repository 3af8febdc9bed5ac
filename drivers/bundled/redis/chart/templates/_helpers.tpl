{{/* The base name of every resource: <release>-redis, at most 40 characters so suffixed names stay valid. */}}
{{- define "redis.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select one component's pods; call with (dict "ctx" $ "component" "primary"). */}}
{{- define "redis.selectorLabels" -}}
app.kubernetes.io/name: {{ .ctx.Chart.Name }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Standard labels of a component's resources; call like redis.selectorLabels. */}}
{{- define "redis.labels" -}}
{{ include "redis.selectorLabels" . }}
app.kubernetes.io/version: {{ include "redis.imageTag" .ctx | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: styrmin
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version }}
{{- with .ctx.Values.styrmin.deployment }}
styrmin.io/deployment: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* The redis image tag: the application version, else the chart's appVersion. */}}
{{- define "redis.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion -}}
{{- end -}}
