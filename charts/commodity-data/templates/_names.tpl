{{/*
Names, in the style of bitnami/common _names.tpl. Kubernetes names are limited to 63 characters
(52 for CronJobs, whose Jobs append a suffix), so every name is truncated without a trailing dash.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "commodity-data.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* chart-version, for the helm.sh/chart label. */}}
{{- define "commodity-data.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-<chart> (or fullnameOverride); the release name alone when it already contains the chart name. */}}
{{- define "commodity-data.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* <fullname>-<suffix>. Usage: include "commodity-data.componentName" (dict "ctx" $ "suffix" "gateway") */}}
{{- define "commodity-data.componentName" -}}
{{- printf "%s-%s" (include "commodity-data.fullname" .ctx | trunc (int (sub 62 (len .suffix)))) .suffix | trimSuffix "-" -}}
{{- end -}}

{{/* The ServiceAccount the pods run as. */}}
{{- define "commodity-data.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "commodity-data.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The shared ConfigMap. */}}
{{- define "commodity-data.configMapName" -}}
{{- include "commodity-data.componentName" (dict "ctx" . "suffix" "config") -}}
{{- end -}}
