{{/*
Shared building blocks: the list of workloads, images, environment, pod-level settings.
Every kind's template ranges over "commodity-data.workloads" instead of copying a file per service.
*/}}

{{/*
The workloads to run, as YAML {workloads: [...]}: one per enabled service, except the projector,
which has one per enabled projection. Each entry: name (object-name suffix), component (the service),
projection (projector only), replicaCount.
*/}}
{{- define "commodity-data.workloads" -}}
workloads:
{{- range $svcName := list "gateway" "query" "ingest" "projector" "dashboard" }}
{{- $svc := index $.Values.services $svcName }}
{{- if $svc.enabled }}
{{- if eq $svcName "projector" }}
{{- range $projName, $proj := $svc.projections }}
{{- if $proj.enabled }}
  - name: {{ printf "projector-%s" $projName }}
    component: projector
    projection: {{ $projName }}
    replicaCount: {{ ternary $svc.replicaCount $proj.replicaCount (kindIs "invalid" $proj.replicaCount) }}
{{- end }}
{{- end }}
{{- else }}
  - name: {{ $svcName }}
    component: {{ $svcName }}
    projection: ""
    replicaCount: {{ $svc.replicaCount }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
A pinned image reference: registry/repository then @digest when one is set, else :tag (the chart
appVersion by default). Usage: include "commodity-data.image" (dict "ctx" $ "svc" $svcValues)
*/}}
{{- define "commodity-data.image" -}}
{{- $g := .ctx.Values.image -}}
{{- $repo := .svc.image.repository -}}
{{- if $g.registry }}{{ $repo = printf "%s/%s" (trimSuffix "/" $g.registry) $repo }}{{ end -}}
{{- $digest := default $g.digest .svc.image.digest -}}
{{- $tag := default (default .ctx.Chart.AppVersion $g.tag) .svc.image.tag -}}
{{- if $digest -}}
{{- printf "%s@%s" $repo $digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (toString $tag) -}}
{{- end -}}
{{- end -}}

{{/* The in-cluster URL of query, for the gateway's QUERY_URL. */}}
{{- define "commodity-data.queryUrl" -}}
{{- printf "http://%s:%v" (include "commodity-data.componentName" (dict "ctx" . "suffix" "query")) .Values.services.query.port -}}
{{- end -}}

{{/* The gateway's PUBLIC_BASE_URL. */}}
{{- define "commodity-data.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl -}}
{{- .Values.publicBaseUrl -}}
{{- else -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.hostname -}}
{{- end -}}
{{- end -}}

{{/* The in-cluster URL of the ingest admin API, for the dashboard's ADMIN_URL. */}}
{{- define "commodity-data.adminUrl" -}}
{{- printf "http://%s:%v" (include "commodity-data.componentName" (dict "ctx" . "suffix" "ingest")) .Values.services.ingest.port -}}
{{- end -}}

{{/* An env var read from a Secret key. Usage: include "commodity-data.secretEnv" (list NAME secret key optional) */}}
{{- define "commodity-data.secretEnv" -}}
- name: {{ index . 0 }}
  valueFrom:
    secretKeyRef:
      name: {{ index . 1 }}
      key: {{ index . 2 }}
      {{- if index . 3 }}
      optional: true
      {{- end }}
{{- end -}}

{{/*
The environment of one component (the ConfigMap supplies the shared part through envFrom).
Usage: include "commodity-data.env" (dict "ctx" $ "component" "ingest" "projection" "" "name" "ingest")
*/}}
{{- define "commodity-data.env" -}}
{{- $v := .ctx.Values -}}
{{- $svc := index $v.services .component -}}
- name: OTEL_SERVICE_NAME
  value: {{ printf "cds-%s" .name | quote }}
{{- if $v.nats.existingSecret }}
{{ include "commodity-data.secretEnv" (list "NATS_URL" $v.nats.existingSecret $v.nats.existingSecretKey false) }}
{{- end }}
{{- if $v.mongodb.existingSecret }}
{{ include "commodity-data.secretEnv" (list "MONGODB_URL" $v.mongodb.existingSecret $v.mongodb.existingSecretKey false) }}
{{- end }}
{{- if eq .component "gateway" }}
- name: QUERY_URL
  value: {{ include "commodity-data.queryUrl" .ctx | quote }}
- name: PUBLIC_BASE_URL
  value: {{ include "commodity-data.publicBaseUrl" .ctx | quote }}
- name: TRUST_PROXY_HOPS
  value: {{ ternary $v.ingress.trustProxyHops 0 $v.ingress.enabled | quote }}
- name: HSTS
  value: {{ and $v.ingress.enabled $v.ingress.tls.enabled | quote }}
{{- if $v.redis.existingSecret }}
{{ include "commodity-data.secretEnv" (list "REDIS_URL" $v.redis.existingSecret $v.redis.existingSecretKey false) }}
{{- end }}
{{- end }}
{{- if eq .component "dashboard" }}
{{- $s := $v.secrets }}
{{- $public := trimSuffix "/" (include "commodity-data.publicBaseUrl" .ctx) }}
- name: MONGODB_DB
  value: {{ $svc.database | quote }}
- name: ADMIN_URL
  value: {{ include "commodity-data.adminUrl" .ctx | quote }}
- name: PUBLIC_API_URL
  value: {{ printf "%s/api/v1" $public | quote }}
- name: PUBLIC_BASE_URL
  value: {{ printf "%s/dashboard" $public | quote }}
- name: COOKIE_SECURE
  value: {{ hasPrefix "https://" $public | quote }}
- name: TRUST_PROXY_HOPS
  value: {{ ternary $v.ingress.trustProxyHops 0 $v.ingress.enabled | quote }}
- name: MAIL_FROM
  value: {{ default (printf "no-reply@%s" $v.ingress.hostname) $svc.mail.from | quote }}
{{- if not $svc.mail.smtpRequired }}
- name: MAIL_DIR
  value: /tmp/mail
{{- end }}
{{ include "commodity-data.secretEnv" (list "ADMIN_TOKEN" $s.existingSecret $s.keys.adminToken false) }}
{{ include "commodity-data.secretEnv" (list "SESSION_SECRET" $s.existingSecret $s.keys.sessionSecret false) }}
{{ include "commodity-data.secretEnv" (list "SMTP_URL" $s.existingSecret $s.keys.smtpUrl (not $svc.mail.smtpRequired)) }}
{{- if $v.redis.existingSecret }}
{{ include "commodity-data.secretEnv" (list "REDIS_URL" $v.redis.existingSecret $v.redis.existingSecretKey false) }}
{{- end }}
{{- end }}
{{- if eq .component "projector" }}
- name: PROJECTIONS
  value: {{ .projection | quote }}
{{- end }}
{{- if eq .component "ingest" }}
{{- $s := $v.secrets }}
- name: ADMIN_URL
  value: {{ printf "http://127.0.0.1:%v" $svc.port | quote }}
{{ include "commodity-data.secretEnv" (list "ADMIN_TOKEN" $s.existingSecret $s.keys.adminToken false) }}
{{ include "commodity-data.secretEnv" (list "EIA_API_KEY" $s.existingSecret $s.keys.eiaApiKey true) }}
{{ include "commodity-data.secretEnv" (list "NASS_API_KEY" $s.existingSecret $s.keys.nassApiKey true) }}
{{ include "commodity-data.secretEnv" (list "CFTC_APP_TOKEN" $s.existingSecret $s.keys.cftcAppToken true) }}
{{- end }}
{{- range $name, $value := $svc.env }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end -}}

{{/* Pod-level settings shared by Deployments and CronJobs. Usage: include "commodity-data.podCommon" $ */}}
{{- define "commodity-data.podCommon" -}}
serviceAccountName: {{ include "commodity-data.serviceAccountName" . }}
automountServiceAccountToken: {{ .Values.serviceAccount.automountToken }}
securityContext: {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.image.pullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity: {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ .Values.tmpDir.sizeLimit }}
{{- end -}}

{{/* Container-level settings shared by every container. Usage: include "commodity-data.containerCommon" $ */}}
{{- define "commodity-data.containerCommon" -}}
imagePullPolicy: {{ .Values.image.pullPolicy }}
securityContext: {{- toYaml .Values.containerSecurityContext | nindent 2 }}
envFrom:
  - configMapRef:
      name: {{ include "commodity-data.configMapName" . }}
volumeMounts:
  - name: tmp
    mountPath: /tmp
{{- end -}}

{{/* The long-running process of a component: services/<component>/src/main.ts, except ingest's, which is the admin API. */}}
{{- define "commodity-data.entrypoint" -}}
{{- if eq . "ingest" -}}
services/ingest/src/admin-main.ts
{{- else -}}
{{- printf "services/%s/src/main.ts" . -}}
{{- end -}}
{{- end -}}

{{/* The command running a TypeScript entry point of the workspace with Node 24's type stripping. */}}
{{- define "commodity-data.nodeCommand" -}}
- node
- --disable-warning=ExperimentalWarning
{{- end -}}
