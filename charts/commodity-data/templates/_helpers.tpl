{{/*
Shared building blocks: the list of workloads, images, environment, pod-level settings.
Every kind's template ranges over "commodity-data.workloads" instead of copying a file per service.
*/}}

{{/* Every service of the chart, in rendering order (a JSON array, for fromJsonArray). */}}
{{- define "commodity-data.serviceNames" -}}
["gateway","query","accounts","projector","dashboard","notifier"]
{{- end -}}

{{/*
The workloads to run, as YAML {workloads: [...]}: one per enabled service, except the projector,
which has one per enabled projection. Each entry: name (object-name suffix; a projection's `_` written
`-`, as object names take no underscore: projector-supply-demand), component (the service),
projection (projector only), replicaCount.
*/}}
{{- define "commodity-data.workloads" -}}
workloads:
{{- range $svcName := include "commodity-data.serviceNames" $ | fromJsonArray }}
{{- $svc := index $.Values.services $svcName }}
{{- if $svc.enabled }}
{{- if eq $svcName "projector" }}
{{- range $projName, $proj := $svc.projections }}
{{- if $proj.enabled }}
  - name: {{ printf "projector-%s" ($projName | replace "_" "-") }}
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

{{/*
Refuses values that would run without least privilege (docs/operations.md "Credentials: one user per
component"): every server a component of the release uses needs its `existingSecret` of per-component
URLs, unless `trial` says this is a throwaway install. Also checks what the schema cannot compare.
Included by configmap.yaml, which every rendering has.
*/}}
{{- define "commodity-data.checkValues" -}}
{{- $v := .Values -}}
{{- $users := dict "nats" (list "gateway" "query" "projector" "accounts" "notifier") "mongodb" (list "query" "projector" "dashboard" "notifier") "redis" (list "gateway" "dashboard") -}}
{{- if not $v.trial -}}
{{- $missing := list -}}
{{- range $infra := list "nats" "mongodb" "redis" -}}
{{- $i := index $v $infra -}}
{{- $enabled := list -}}
{{- range $c := index $users $infra }}{{ if (index $v.services $c).enabled }}{{ $enabled = append $enabled $c }}{{ end }}{{ end -}}
{{- if and (eq $infra "nats") $v.ingestJobs.enabled $v.ingestJobs.schedules }}{{ $enabled = append $enabled "ingest" }}{{ end -}}
{{- if and $enabled (not $i.existingSecret) -}}
{{- $missing = append $missing (printf "%s.existingSecret (a Secret with keys %s)" $infra (join ", " (sortAlpha (values $i.existingSecretKeys)))) -}}
{{- end -}}
{{- end -}}
{{- if $missing -}}
{{- fail (printf "least privilege: set %s: one URL per component, each with that component's own user (docs/operations.md \"Credentials: one user per component\"; files/nats-authorization.conf, files/redis-users.conf). Or set trial=true for a throwaway install in which every component shares the credential-less nats/mongodb/redis.url with every right on those servers (never in production)" (join " and " $missing)) -}}
{{- end -}}
{{- end -}}
{{- if and $v.ingress.enabled $v.services.dashboard.enabled (eq (include "commodity-data.dashboardHostname" .) $v.ingress.hostname) -}}
{{- fail "ingress.dashboardHostname must differ from ingress.hostname: the dashboard (its sessions) and the API reference (/docs, a third-party bundle) must not share an origin" -}}
{{- end -}}
{{- end -}}

{{/* The dashboard's public host: `ingress.dashboardHostname`, else dashboard.<ingress.hostname>. */}}
{{- define "commodity-data.dashboardHostname" -}}
{{- default (printf "dashboard.%s" .Values.ingress.hostname) .Values.ingress.dashboardHostname -}}
{{- end -}}

{{/* The dashboard's public origin: its host, with the scheme of the API's public URL. */}}
{{- define "commodity-data.dashboardOrigin" -}}
{{- printf "%s://%s" (urlParse (include "commodity-data.publicBaseUrl" .)).scheme (include "commodity-data.dashboardHostname" .) -}}
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

{{/*
Address ranges the notifier's egress policy leaves out of "the internet" (a JSON object {ipv4, ipv6}):
private (RFC 1918), loopback, link-local (169.254.169.254 is the cloud metadata service), CGNAT
(100.64/10), "this network", benchmarking, multicast and reserved IPv4; IPv6 loopback, unspecified,
IPv4-mapped and NAT64 (both reach IPv4 addresses), unique-local (fc00::/7), link-local, site-local and
multicast. Keep in step with libs/webhooks/src/address.ts, which refuses the same before connecting.
*/}}
{{- define "commodity-data.nonPublicRanges" -}}
{{- dict
  "ipv4" (list "0.0.0.0/8" "10.0.0.0/8" "100.64.0.0/10" "127.0.0.0/8" "169.254.0.0/16" "172.16.0.0/12" "192.0.0.0/24" "192.168.0.0/16" "198.18.0.0/15" "224.0.0.0/4" "240.0.0.0/4")
  "ipv6" (list "::/128" "::1/128" "::ffff:0:0/96" "64:ff9b::/96" "fc00::/7" "fe80::/10" "fec0::/10" "ff00::/8")
  | toJson -}}
{{- end -}}

{{/* The origin prefixed to notification URLs (the notifier's PUBLIC_API_ORIGIN), without a trailing slash. */}}
{{- define "commodity-data.publicApiOrigin" -}}
{{- trimSuffix "/" (default (include "commodity-data.publicBaseUrl" .) .Values.services.notifier.publicApiOrigin) -}}
{{- end -}}

{{/* The in-cluster URL of the accounts service's admin API, for the dashboard's ADMIN_URL. */}}
{{- define "commodity-data.adminUrl" -}}
{{- printf "http://%s:%v" (include "commodity-data.componentName" (dict "ctx" . "suffix" "accounts")) .Values.services.accounts.port -}}
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
Usage: include "commodity-data.env" (dict "ctx" $ "component" "query" "projection" "" "name" "query");
component "ingest" is a CronJob's run of the ingest CLI (its settings: ingestJobs).
*/}}
{{- define "commodity-data.env" -}}
{{- $v := .ctx.Values -}}
{{- $svc := ternary $v.ingestJobs (index $v.services .component) (eq .component "ingest") -}}
- name: OTEL_SERVICE_NAME
  value: {{ printf "cds-%s" .name | quote }}
{{- /*
Least privilege (docs/operations.md "Credentials"): each component gets only the URLs of the servers it
uses, each with its own user, from its own key of the Secret. The accounts service is the NATS user
"admin" (the only publisher of key events), the scheduled ingest runs the user "ingest" (data only).
*/}}
{{- $natsUser := "" }}
{{- if has .component (list "gateway" "query" "projector" "notifier" "ingest") }}{{ $natsUser = .component }}{{ end }}
{{- if eq .component "accounts" }}{{ $natsUser = "admin" }}{{ end }}
{{- if and $v.nats.existingSecret $natsUser }}
{{ include "commodity-data.secretEnv" (list "NATS_URL" $v.nats.existingSecret (index $v.nats.existingSecretKeys $natsUser) false) }}
{{- end }}
{{- if and $v.mongodb.existingSecret (has .component (list "query" "projector" "dashboard" "notifier")) }}
{{ include "commodity-data.secretEnv" (list "MONGODB_URL" $v.mongodb.existingSecret (index $v.mongodb.existingSecretKeys .component) false) }}
{{- end }}
{{- if and $v.redis.existingSecret (has .component (list "gateway" "dashboard")) }}
{{ include "commodity-data.secretEnv" (list "REDIS_URL" $v.redis.existingSecret (index $v.redis.existingSecretKeys .component) false) }}
{{- /* Sentinels that anyone may talk to can be told to name another primary: theirs is a password of their own. */}}
{{- if $v.redis.sentinels }}
{{ include "commodity-data.secretEnv" (list "REDIS_SENTINEL_PASSWORD" $v.redis.existingSecret $v.redis.sentinelPasswordKey false) }}
{{- end }}
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
- name: SSE_MAX_STREAMS
  value: {{ int64 $svc.sse.maxStreams | toString | quote }}
- name: SSE_MAX_STREAMS_PER_CLIENT
  value: {{ int64 $svc.sse.maxStreamsPerClient | toString | quote }}
{{- end }}
{{- if eq .component "dashboard" }}
{{- $s := $v.secrets }}
{{- $public := trimSuffix "/" (include "commodity-data.publicBaseUrl" .ctx) }}
{{- $own := include "commodity-data.dashboardOrigin" .ctx }}
- name: MONGODB_DB
  value: {{ $svc.database | quote }}
- name: ADMIN_URL
  value: {{ include "commodity-data.adminUrl" .ctx | quote }}
{{- if $v.services.gateway.enabled }}
{{- /* The public status page reads GET /datasets from the gateway inside the cluster. */}}
- name: GATEWAY_URL
  value: {{ printf "http://%s:%v" (include "commodity-data.componentName" (dict "ctx" .ctx "suffix" "gateway")) $v.services.gateway.port | quote }}
{{- end }}
- name: PUBLIC_API_URL
  value: {{ printf "%s/api/v1" $public | quote }}
- name: PUBLIC_BASE_URL
  value: {{ printf "%s/dashboard" $own | quote }}
- name: COOKIE_SECURE
  value: {{ hasPrefix "https://" $own | quote }}
- name: TRUST_PROXY_HOPS
  value: {{ ternary $v.ingress.trustProxyHops 0 $v.ingress.enabled | quote }}
{{- include "commodity-data.mailEnv" (dict "ctx" .ctx "svc" $svc) }}
- name: WEBHOOKS_DB
  value: {{ $svc.webhooksDatabase | quote }}
{{- /* A re-send or test event starts a run of the notifier's retries: the dashboard records it with the same settings. */}}
{{- $wh := $v.services.notifier.webhooks }}
- name: WEBHOOK_RETRY_BASE_MS
  value: {{ int64 $wh.retryBaseMs | toString | quote }}
- name: WEBHOOK_RETRY_MAX_MS
  value: {{ int64 $wh.retryMaxMs | toString | quote }}
- name: WEBHOOK_RETRY_FOR_MS
  value: {{ int64 $wh.retryForMs | toString | quote }}
- name: WEBHOOK_DISABLE_AFTER_MS
  value: {{ int64 $wh.disableAfterMs | toString | quote }}
{{- if $v.services.query.enabled }}
{{- /* The webhook form checks commodity ids against the catalog (by shape only without it). */}}
- name: QUERY_URL
  value: {{ include "commodity-data.queryUrl" .ctx | quote }}
{{- end }}
{{ include "commodity-data.secretEnv" (list "ADMIN_TOKEN" $s.existingSecret $s.keys.adminToken false) }}
{{ include "commodity-data.secretEnv" (list "SESSION_SECRET" $s.existingSecret $s.keys.sessionSecret false) }}
{{- end }}
{{- if eq .component "notifier" }}
{{- $public := include "commodity-data.publicApiOrigin" .ctx }}
{{- $wh := $svc.webhooks }}
- name: JETSTREAM_REPLICAS
  value: {{ $v.nats.jetstreamReplicas | quote }}
- name: WEBHOOKS_DB
  value: {{ $svc.database | quote }}
- name: PUBLIC_API_ORIGIN
  value: {{ $public | quote }}
- name: DASHBOARD_URL
  value: {{ default (printf "%s/dashboard" (include "commodity-data.dashboardOrigin" .ctx)) $svc.dashboardUrl | quote }}
{{- include "commodity-data.mailEnv" (dict "ctx" .ctx "svc" $svc) }}
- name: WEBHOOK_TIMEOUT_MS
  value: {{ int64 $wh.timeoutMs | toString | quote }}
- name: WEBHOOK_MAX_RESPONSE_BYTES
  value: {{ int64 $wh.maxResponseBytes | toString | quote }}
- name: WEBHOOK_RETRY_BASE_MS
  value: {{ int64 $wh.retryBaseMs | toString | quote }}
- name: WEBHOOK_RETRY_MAX_MS
  value: {{ int64 $wh.retryMaxMs | toString | quote }}
- name: WEBHOOK_RETRY_FOR_MS
  value: {{ int64 $wh.retryForMs | toString | quote }}
- name: WEBHOOK_DISABLE_AFTER_MS
  value: {{ int64 $wh.disableAfterMs | toString | quote }}
- name: WEBHOOK_CONCURRENCY
  value: {{ int64 $wh.concurrency | toString | quote }}
- name: WEBHOOK_ACCOUNT_CONCURRENCY
  value: {{ int64 $wh.accountConcurrency | toString | quote }}
- name: WEBHOOK_POLL_MS
  value: {{ int64 $wh.pollMs | toString | quote }}
{{- end }}
{{- if eq .component "projector" }}
- name: PROJECTIONS
  value: {{ .projection | quote }}
{{- end }}
{{- if eq .component "accounts" }}
{{- $s := $v.secrets }}
{{- /*
The admin token is the accounts service's own (and its CLI's, run in its pod): the scheduled ingest
runs, which parse data from the internet, never get it, nor the admin API's address.
*/}}
- name: ADMIN_URL
  value: {{ printf "http://127.0.0.1:%v" $svc.port | quote }}
{{ include "commodity-data.secretEnv" (list "ADMIN_TOKEN" $s.existingSecret $s.keys.adminToken false) }}
- name: MAX_ACTIVE_FREE_KEYS
  value: {{ int64 $v.apiKeys.maxActiveFreeKeys | toString | quote }}
- name: MAX_ACTIVE_FREE_SESSION_KEYS
  value: {{ int64 $v.apiKeys.maxActiveFreeSessionKeys | toString | quote }}
- name: SESSION_KEY_SWEEP_MS
  value: {{ int64 $v.apiKeys.sessionKeySweepMs | toString | quote }}
{{- end }}
{{- if eq .component "ingest" }}
{{- $s := $v.secrets }}
{{ include "commodity-data.secretEnv" (list "EIA_API_KEY" $s.existingSecret $s.keys.eiaApiKey true) }}
{{ include "commodity-data.secretEnv" (list "NASS_API_KEY" $s.existingSecret $s.keys.nassApiKey true) }}
{{ include "commodity-data.secretEnv" (list "CFTC_APP_TOKEN" $s.existingSecret $s.keys.cftcAppToken true) }}
{{- end }}
{{- range $name, $value := $svc.env }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end -}}

{{/*
The mail settings of a component that sends mail (the dashboard, the notifier): sender, SMTP URL by
Secret reference (optional when `mail.smtpRequired` is false, then mails go to files under /tmp/mail).
Usage: include "commodity-data.mailEnv" (dict "ctx" $ "svc" $serviceValues); starts with a newline.
*/}}
{{- define "commodity-data.mailEnv" -}}
{{- $v := .ctx.Values }}
{{- $s := $v.secrets }}
- name: MAIL_FROM
  value: {{ default (printf "no-reply@%s" $v.ingress.hostname) .svc.mail.from | quote }}
{{- if not .svc.mail.smtpRequired }}
- name: MAIL_DIR
  value: /tmp/mail
{{- end }}
{{ include "commodity-data.secretEnv" (list "SMTP_URL" $s.existingSecret $s.keys.smtpUrl (not .svc.mail.smtpRequired)) }}
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

{{/* The long-running process of a component: services/<component>/src/main.ts (ingest has none: it runs as CronJobs). */}}
{{- define "commodity-data.entrypoint" -}}
{{- printf "services/%s/src/main.ts" . -}}
{{- end -}}

{{/* The command running a TypeScript entry point of the workspace with Node 24's type stripping. */}}
{{- define "commodity-data.nodeCommand" -}}
- node
- --disable-warning=ExperimentalWarning
{{- end -}}
