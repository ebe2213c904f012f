{{/*
Labels, in the style of bitnami/common _labels.tpl.
*/}}

{{/* Labels on every object. */}}
{{- define "commodity-data.labels.standard" -}}
app.kubernetes.io/name: {{ include "commodity-data.name" . }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: commodity-data
helm.sh/chart: {{ include "commodity-data.chart" . }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Immutable selector labels of the release (never add a label here: Deployment selectors cannot change). */}}
{{- define "commodity-data.labels.matchLabels" -}}
app.kubernetes.io/name: {{ include "commodity-data.name" . }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end -}}

{{/*
Selector labels of one workload: the release, its component and, for the projector, its projection.
Usage: include "commodity-data.labels.workloadSelector" (dict "ctx" $ "w" $workload)
*/}}
{{- define "commodity-data.labels.workloadSelector" -}}
{{ include "commodity-data.labels.matchLabels" .ctx }}
app.kubernetes.io/component: {{ .w.component }}
{{- if .w.projection }}
commodity-data.io/projection: {{ .w.projection }}
{{- end }}
{{- end -}}

{{/* Standard labels plus the workload's selector labels. */}}
{{- define "commodity-data.labels.workload" -}}
{{ include "commodity-data.labels.standard" .ctx }}
app.kubernetes.io/component: {{ .w.component }}
{{- if .w.projection }}
commodity-data.io/projection: {{ .w.projection }}
{{- end }}
{{- end -}}

{{/* Annotations on every object (may be empty). */}}
{{- define "commodity-data.annotations.common" -}}
{{- with .Values.commonAnnotations }}
{{- toYaml . }}
{{- end }}
{{- end -}}
