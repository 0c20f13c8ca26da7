{{/* The chart's name, for app.kubernetes.io/name. */}}
{{- define "kube-lifecycle-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The full name of the objects: the release's name when it contains the chart's
(`helm install kube-lifecycle-exporter …` names everything kube-lifecycle-exporter,
as the kustomize base does), else <release>-<chart>.
*/}}
{{- define "kube-lifecycle-exporter.fullname" -}}
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

{{- define "kube-lifecycle-exporter.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{- define "kube-lifecycle-exporter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels: the kustomize base's app.kubernetes.io/name, and the release. */}}
{{- define "kube-lifecycle-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-lifecycle-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The labels of every object: Helm's standard ones and customLabels. */}}
{{- define "kube-lifecycle-exporter.labels" -}}
helm.sh/chart: {{ include "kube-lifecycle-exporter.chart" . }}
{{ include "kube-lifecycle-exporter.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.customLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "kube-lifecycle-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "kube-lifecycle-exporter.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* registry/repository:tag@digest; the tag defaults to the appVersion. */}}
{{- define "kube-lifecycle-exporter.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry -}}
{{- $image := printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- if $registry -}}
{{- $image = printf "%s/%s" $registry $image -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- $image = printf "%s@%s" $image .Values.image.digest -}}
{{- end -}}
{{- $image -}}
{{- end -}}

{{/* imagePullSecrets entries from names or {name: …} maps. */}}
{{- define "kube-lifecycle-exporter.imagePullSecrets" -}}
{{- range (concat .Values.global.imagePullSecrets .Values.imagePullSecrets) }}
{{- if kindIs "map" . }}
- name: {{ .name }}
{{- else }}
- name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* A list or a comma-separated string, as a list of non-empty strings. */}}
{{- define "kube-lifecycle-exporter.list" -}}
{{- $items := list -}}
{{- $value := . | default list -}}
{{- if kindIs "string" $value -}}
{{- $value = splitList "," $value -}}
{{- end -}}
{{- range $value -}}
{{- if trim . -}}
{{- $items = append $items (trim .) -}}
{{- end -}}
{{- end -}}
{{- toJson $items -}}
{{- end -}}

{{/* http or https, as the exporter serves (webConfig.scheme). */}}
{{- define "kube-lifecycle-exporter.scheme" -}}
{{- if and .Values.webConfig.enabled (eq .Values.webConfig.scheme "HTTPS") -}}
https
{{- else -}}
http
{{- end -}}
{{- end -}}

{{/*
The exporter's targets as the alerts select them: prometheusRule.exporterSelector,
else the job the ServiceMonitor names them with, the value of the Service's label
prometheus.monitor.jobLabel (without one, the operator takes the Service's name).
*/}}
{{- define "kube-lifecycle-exporter.exporterSelector" -}}
{{- if .Values.prometheusRule.exporterSelector -}}
{{- .Values.prometheusRule.exporterSelector -}}
{{- else -}}
{{- $jobLabel := .Values.prometheus.monitor.jobLabel -}}
{{- $job := include "kube-lifecycle-exporter.fullname" . -}}
{{- if $jobLabel -}}
{{- $job = get (include "kube-lifecycle-exporter.labels" . | fromYaml) $jobLabel -}}
{{- if not $job -}}
{{- fail (printf "prometheus.monitor.jobLabel: the Service has no label %s (add it with customLabels), or set prometheusRule.exporterSelector" $jobLabel) -}}
{{- end -}}
{{- end -}}
{{- printf "job=%q" $job -}}
{{- end -}}
{{- end -}}

{{/*
The rule groups of files/kube-lifecycle.rules.yaml (a copy of
alerts/kube-lifecycle.rules.yaml, which `cargo xtask generate` writes) with what
prometheusRule sets applied, the way the mixin's _config does: the severity of
each tier, keep_firing_for, the runbook URL pattern, the exporter's selector, and
per alert severity, for, keep_firing_for, labels or enabled: false. Returns
`groups:` as YAML; the PrometheusRule and NOTES.txt read it.
*/}}
{{- define "kube-lifecycle-exporter.ruleGroups" -}}
{{- $config := .Values.prometheusRule -}}
{{- $file := .Files.Get "files/kube-lifecycle.rules.yaml" | fromYaml -}}
{{- if not $file.groups -}}
{{- fail "files/kube-lifecycle.rules.yaml: no rule groups" -}}
{{- end -}}
{{- /* The rule file carries the mixin's default severity of each tier. */ -}}
{{- $tiers := dict "critical" "page" "warning" "ticket" "info" "info" "none" "silent" -}}
{{- $placeholder := "https://kube-lifecycle-exporter.example/runbooks/" -}}
{{- $defaultSelector := "job=\"kube-lifecycle-exporter\"" -}}
{{- $selector := include "kube-lifecycle-exporter.exporterSelector" . -}}
{{- $overrides := $config.alerts | default dict -}}
{{- $known := dict -}}
{{- $groups := list -}}
{{- range $group := $file.groups -}}
{{- $rules := list -}}
{{- range $rule := $group.rules -}}
{{- $name := $rule.alert -}}
{{- $_ := set $known $name true -}}
{{- $override := get $overrides $name | default dict -}}
{{- if not (and (hasKey $override "enabled") (eq (toString $override.enabled) "false")) -}}
{{- $_ := set $rule "expr" (replace $defaultSelector $selector $rule.expr) -}}
{{- $labels := $rule.labels | default dict -}}
{{- $tier := get $tiers (toString $labels.severity) -}}
{{- if not $tier -}}
{{- fail (printf "%s: severity %q is none of the mixin's defaults (critical, warning, info, none)" $name $labels.severity) -}}
{{- end -}}
{{- $_ := set $labels "severity" (get $config.severities $tier | default $labels.severity) -}}
{{- if $override.severity -}}
{{- $_ := set $labels "severity" $override.severity -}}
{{- end -}}
{{- range $key, $value := $override.labels -}}
{{- $_ := set $labels $key $value -}}
{{- end -}}
{{- $_ := set $rule "labels" $labels -}}
{{- if $override.for -}}
{{- $_ := set $rule "for" $override.for -}}
{{- end -}}
{{- $keep := $config.keepFiringFor -}}
{{- if hasKey $override "keep_firing_for" -}}
{{- $keep = $override.keep_firing_for -}}
{{- end -}}
{{- if $keep -}}
{{- $_ := set $rule "keep_firing_for" $keep -}}
{{- else -}}
{{- $_ := unset $rule "keep_firing_for" -}}
{{- end -}}
{{- $annotations := $rule.annotations | default dict -}}
{{- if hasPrefix $placeholder (toString $annotations.runbook_url) -}}
{{- $_ := set $annotations "runbook_url" (printf $config.runbookURLPattern (lower $name)) -}}
{{- end -}}
{{- $rules = append $rules $rule -}}
{{- end -}}
{{- end -}}
{{- if $rules -}}
{{- $groups = append $groups (set $group "rules" $rules) -}}
{{- end -}}
{{- end -}}
{{- range $name, $_ := $overrides -}}
{{- if not (hasKey $known $name) -}}
{{- fail (printf "prometheusRule.alerts.%s: no such alert in the rule pack (alerts/README.md lists them)" $name) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "groups" $groups) -}}
{{- end -}}
