{{/*
Egress rules of the NetworkPolicies (networkpolicy.yaml), one building block per destination. Each
renders list items of `egress:` at column 0 (indent them with nindent). A destination without peers
(`to: []`) is any address on its port.
*/}}

{{/* DNS, UDP and TCP, any address. Usage: include "commodity-data.egress.dns" $port */}}
{{- define "commodity-data.egress.dns" -}}
- ports:
    - port: {{ . }}
      protocol: UDP
    - port: {{ . }}
      protocol: TCP
{{- end -}}

{{/* One TCP port, to the peers given (any address when none). Usage: include "commodity-data.egress.port" (dict "port" 4222 "to" $peers) */}}
{{- define "commodity-data.egress.port" -}}
- ports:
    - port: {{ .port }}
      protocol: TCP
  {{- with .to }}
  to: {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/*
The sentinels' and cluster nodes' ports (from their host:port), to the Redis peers: the primary is asked
of the sentinels, the slots of the cluster nodes. Renders nothing without either.
Usage: include "commodity-data.egress.redisTopology" (dict "ctx" $ "to" $redisPeers)
*/}}
{{- define "commodity-data.egress.redisTopology" -}}
{{- with concat .ctx.Values.redis.sentinels .ctx.Values.redis.clusterNodes }}
{{- $redisPorts := list }}
{{- range $addr := . }}
{{- $redisPorts = append $redisPorts (regexFind "[0-9]+$" $addr | int) }}
{{- end }}
- ports:
    {{- range $port := $redisPorts | uniq }}
    - port: {{ $port }}
      protocol: TCP
    {{- end }}
  {{- with $.to }}
  to: {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* A component of the release, on its Service port. Usage: include "commodity-data.egress.component" (dict "ctx" $ "component" "query") */}}
{{- define "commodity-data.egress.component" -}}
- to:
    - podSelector:
        matchLabels: {{- include "commodity-data.labels.workloadSelector" (dict "ctx" .ctx "w" (dict "component" .component "projection" "")) | nindent 10 }}
  ports:
    - port: {{ (index .ctx.Values.services .component).port }}
      protocol: TCP
{{- end -}}

{{/*
The OpenTelemetry collector when tracing is on: the port of `otel.endpoint` (443 or 80 by its scheme
when it names none), to `networkPolicy.egress.otel.to`. Renders nothing when `otel.enabled` is false.
Usage: include "commodity-data.egress.otel" $
*/}}
{{- define "commodity-data.egress.otel" -}}
{{- if .Values.otel.enabled }}
{{- $u := urlParse .Values.otel.endpoint }}
{{- $port := regexFind "[0-9]+$" (regexFind ":[0-9]+$" $u.host) }}
{{- if not $port }}{{ $port = ternary "443" "80" (eq $u.scheme "https") }}{{ end }}
{{- include "commodity-data.egress.port" (dict "port" ($port | int) "to" .Values.networkPolicy.egress.otel.to) }}
{{- end }}
{{- end -}}

{{/*
Public addresses only, on the ports given: everything but the ranges of "commodity-data.nonPublicRanges"
(the cluster, the nodes, the cloud metadata service), in both families.
Usage: include "commodity-data.egress.public" (dict "ctx" $ "ports" (list 443))
*/}}
{{- define "commodity-data.egress.public" -}}
{{- $ranges := include "commodity-data.nonPublicRanges" .ctx | fromJson }}
- to:
    - ipBlock:
        cidr: 0.0.0.0/0
        except: {{- toYaml $ranges.ipv4 | nindent 10 }}
    - ipBlock:
        cidr: ::/0
        except: {{- toYaml $ranges.ipv6 | nindent 10 }}
  ports:
    {{- range $port := .ports }}
    - port: {{ $port }}
      protocol: TCP
    {{- end }}
{{- end -}}
