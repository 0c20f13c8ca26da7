//! deploy/helm/kube-lifecycle-exporter: the Helm chart.
//!
//! The chart is rendered and linted by Helm's own Go SDK (v4) through
//! helm-python-sdk (tests/helm/sdk.py), which `scripts/test` installs, pinned, in
//! the virtual environment of kubernetes-validate and exports as `HELM_PYTHON`:
//! no helm binary is needed. Every variant below is linted, rendered, validated
//! against the Kubernetes schemas and checked for read-only RBAC and a hardened
//! pod; the default render must be the kustomize base's objects (the same
//! exporter, installed two ways) and the sharded one the sharded overlay's. The
//! chart's copies of the rule pack and the dashboards (files/) and its appVersion
//! are written by `cargo xtask generate`, whose `--check` scripts/test runs; its
//! values.schema.json must refuse typos and wrong types.

use crate::kustomize;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

const CHART: &str = "deploy/helm/kube-lifecycle-exporter";
const RULES: &str = "alerts/kube-lifecycle.rules.yaml";
const DASHBOARDS: &str = "dashboards";
/// The release and namespace of the README's `helm install`, which name the
/// objects as the kustomize base does.
const RELEASE: &str = "kube-lifecycle-exporter";
const NAMESPACE: &str = "kube-lifecycle";
/// The labels Helm charts put on everything, which the kustomize base has not.
const HELM_LABELS: &[&str] = &[
    "helm.sh/chart",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
];
/// The kinds kubernetes-validate has no schema for: the Prometheus Operator's and
/// the VerticalPodAutoscaler.
const CUSTOM_KINDS: &[&str] = &["ServiceMonitor", "PrometheusRule", "VerticalPodAutoscaler"];
/// As tests/artifacts/deploy.rs: the oldest and newest schemas kubernetes-validate 1.37 has.
const KUBERNETES_VERSIONS: &[&str] = &["1.25.0", "1.37.0"];
/// The prefix of every `runbook_url` in alerts/ (alerts/README.md).
const RUNBOOK_PLACEHOLDER: &str = "https://kube-lifecycle-exporter.example/runbooks";

/// A values file and where it is installed.
struct Variant {
    name: &'static str,
    release: &'static str,
    namespace: &'static str,
    values: &'static str,
}

const DEFAULT: Variant = Variant {
    name: "default",
    release: RELEASE,
    namespace: NAMESPACE,
    values: "",
};

const VARIANTS: &[Variant] = &[
    DEFAULT,
    Variant {
        name: "with the Prometheus Operator",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
prometheus:
  monitor:
    enabled: true
prometheusRule:
  enabled: true
prometheusScrape: false
",
    },
    Variant {
        name: "sharded",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
replicas: 3
autosharding:
  enabled: true
",
    },
    Variant {
        name: "web config",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
webConfig:
  enabled: true
  existingSecret: exporter-web-config
  tlsSecret: exporter-tls
  scheme: HTTPS
prometheus:
  monitor:
    enabled: true
    tlsConfig:
      insecureSkipVerify: true
    basicAuth:
      username: {name: exporter-scrape, key: username}
      password: {name: exporter-scrape, key: password}
prometheusScrape: true
",
    },
    Variant {
        name: "custom namespace",
        release: "lifecycle",
        namespace: "monitoring",
        values: "
releaseNamespace: true
dashboards:
  namespace: grafana
prometheus:
  monitor:
    enabled: true
    jobLabel: \"\"
",
    },
    Variant {
        name: "custom labels",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
customLabels:
  team: platform
labels:
  tier: monitoring
annotations:
  owner: platform
podLabels:
  sidecar.istio.io/inject: \"false\"
podAnnotations:
  cluster-autoscaler.kubernetes.io/safe-to-evict: \"true\"
service:
  annotations:
    example.com/expose: \"no\"
prometheus:
  monitor:
    enabled: true
    additionalLabels:
      release: kube-prometheus-stack
    annotations:
      example.com/owner: platform
    jobLabel: team
prometheusRule:
  enabled: true
  additionalLabels:
    release: kube-prometheus-stack
dashboards:
  label: grafana_dashboard_lifecycle
  labelValue: \"yes\"
  additionalLabels:
    release: kube-prometheus-stack
  annotations:
    grafana_folder: Kubernetes
serviceAccount:
  annotations:
    example.com/role: reader
",
    },
    Variant {
        name: "severity and for overridden",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
prometheusRule:
  enabled: true
  runbookURLPattern: https://runbooks.example.com/kube-lifecycle/%s
  exporterSelector: job=\"lifecycle\", namespace=\"monitoring\"
  severities:
    page: pager
    ticket: ticket
    info: none
  keepFiringFor: \"\"
  alerts:
    KubeLifecycleDeploymentRecreateBlocked:
      severity: warning
      for: 20m
    KubeLifecycleDaemonSetUnscheduled:
      for: 30m
      keep_firing_for: 10m
      labels:
        team: apps
    KubeLifecycleWatchRestarting:
      enabled: false
",
    },
    Variant {
        name: "every option",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
global:
  imagePullSecrets: [global-pull]
image:
  registry: registry.example.com
  repository: infra/kube-lifecycle-exporter
  tag: 0.1.0-rc1
  digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
  pullPolicy: Always
imagePullSecrets:
  - pull
  - name: other-pull
namespaces: [shop, payments]
namespacesDenylist: kube-system, kube-public
unscheduledAfter: 10m
creatingAfter: 15m
watchTimeout: 120s
runbookBaseURL: https://runbooks.example.com/kube-lifecycle
logFormat: text
logLevel: debug
extraArgs: [--event-max-age=2h]
env:
  - name: RUST_BACKTRACE
    value: \"1\"
resources:
  requests: {cpu: 200m, memory: 512Mi}
  limits: {memory: 1Gi}
nodeSelector:
  kubernetes.io/os: linux
  node-role.kubernetes.io/infra: \"\"
tolerations:
  - key: node-role.kubernetes.io/infra
    operator: Exists
    effect: NoSchedule
affinity:
  nodeAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        preference:
          matchExpressions:
            - {key: node-role.kubernetes.io/infra, operator: Exists}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        app.kubernetes.io/name: kube-lifecycle-exporter
priorityClassName: system-cluster-critical
service:
  type: NodePort
  port: 80
  nodePort: 30096
prometheus:
  monitor:
    enabled: true
    interval: 1m
    scrapeTimeout: 30s
    relabelings:
      - sourceLabels: [__meta_kubernetes_pod_node_name]
        targetLabel: exporter_node
    metricRelabelings:
      - sourceLabels: [__name__]
        regex: kube_lifecycle_.*_duration_seconds_bucket
        action: drop
networkPolicy:
  enabled: true
  ingress:
    - from:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: monitoring
          podSelector:
            matchLabels:
              app.kubernetes.io/name: prometheus
      ports:
        - port: metrics
          protocol: TCP
  egress:
    - ports:
        - port: 443
          protocol: TCP
        - port: 6443
          protocol: TCP
podDisruptionBudget:
  maxUnavailable: 1
verticalPodAutoscaler:
  enabled: true
  controlledResources: [memory]
  controlledValues: RequestsOnly
  minAllowed: {memory: 128Mi}
  maxAllowed: {memory: 2Gi}
  updatePolicy:
    updateMode: Initial
",
    },
    Variant {
        name: "an existing service account",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
rbac:
  create: false
serviceAccount:
  create: false
  name: lifecycle-reader
",
    },
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chart() -> PathBuf {
    root().join(CHART)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn yaml(text: &str, what: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A Python with helm-python-sdk: `$HELM_PYTHON` (scripts/test sets it), else
/// `python3` from PATH.
fn helm_python() -> PathBuf {
    std::env::var_os("HELM_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| "python3".into())
}

/// One request to tests/helm/sdk.py (its docstring has the format).
fn sdk(request: &Value) -> Value {
    let python = helm_python();
    let mut child = Command::new(&python)
        .arg(root().join("tests/helm/sdk.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}; {}", python.display(), NEEDED));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "tests/helm/sdk.py failed ({NEEDED}):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("sdk.py answers JSON")
}

const NEEDED: &str = "helm-python-sdk is needed: scripts/test installs it \
    (pip install helm-python-sdk) and sets HELM_PYTHON to that Python";

/// What one install would create, and its NOTES.txt.
struct Rendered {
    variant: &'static Variant,
    /// Helm's output per template, as `helm template` prints it.
    manifests: BTreeMap<String, String>,
    objects: Vec<Value>,
    notes: String,
}

impl Rendered {
    fn find(&self, kind: &str) -> Vec<&Value> {
        self.objects.iter().filter(|o| o["kind"] == kind).collect()
    }

    fn one(&self, kind: &str) -> &Value {
        match self.find(kind)[..] {
            [o] => o,
            ref all => panic!(
                "{}: expected one {kind}, found {}",
                self.variant.name,
                all.len()
            ),
        }
    }

    fn workload(&self) -> &Value {
        let all: Vec<&Value> = self
            .objects
            .iter()
            .filter(|o| o["kind"] == "Deployment" || o["kind"] == "StatefulSet")
            .collect();
        assert_eq!(all.len(), 1, "{}: one workload", self.variant.name);
        all[0]
    }

    fn container(&self) -> &Value {
        let containers = self.workload()["spec"]["template"]["spec"]["containers"]
            .as_array()
            .expect("containers");
        assert_eq!(containers.len(), 1, "{}", self.variant.name);
        &containers[0]
    }

    fn args(&self) -> Vec<String> {
        strings(&self.container()["args"])
    }
}

fn strings(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

fn render_request(variant: &Variant) -> Value {
    json!({"values": variant.values, "name": variant.release, "namespace": variant.namespace})
}

fn parse(variant: &'static Variant, manifests: BTreeMap<String, String>) -> Rendered {
    let mut objects = Vec::new();
    let mut notes = String::new();
    for (template, text) in &manifests {
        if template.ends_with("/NOTES.txt") {
            notes = text.clone();
            continue;
        }
        let what = format!("{}: {template}", variant.name);
        objects.extend(kustomize::documents(text, &what).unwrap_or_else(|e| panic!("{e}")));
    }
    Rendered {
        variant,
        manifests,
        objects,
        notes,
    }
}

struct Renders {
    sdk: String,
    renders: Vec<Rendered>,
    lints: Vec<Value>,
}

/// Every variant rendered and linted, once per test run.
fn renders() -> &'static Renders {
    static RENDERS: OnceLock<Renders> = OnceLock::new();
    RENDERS.get_or_init(|| {
        let answer = sdk(&json!({
            "chart": chart(),
            "renders": VARIANTS.iter().map(render_request).collect::<Vec<_>>(),
            "lints": VARIANTS.iter().map(|v| json!({"values": v.values, "namespace": v.namespace})).collect::<Vec<_>>(),
        }));
        let renders = VARIANTS
            .iter()
            .zip(answer["renders"].as_array().unwrap())
            .map(|(variant, render)| {
                if let Some(error) = render.get("error") {
                    panic!("{}: the chart does not render: {error}", variant.name);
                }
                let manifests = serde_json::from_value(render["manifests"].clone()).unwrap();
                parse(variant, manifests)
            })
            .collect();
        Renders {
            sdk: answer["sdk"].as_str().unwrap_or_default().to_string(),
            renders,
            lints: answer["lints"].as_array().unwrap().clone(),
        }
    })
}

fn default_render() -> &'static Rendered {
    &renders().renders[0]
}

fn variant(name: &str) -> &'static Rendered {
    renders()
        .renders
        .iter()
        .find(|r| r.variant.name == name)
        .unwrap_or_else(|| panic!("no variant {name}"))
}

/// The kustomize base (and an overlay), rendered as tests/artifacts/deploy.rs does.
fn kustomized(dir: &str) -> Vec<Value> {
    kustomize::render(&root().join(dir)).unwrap_or_else(|e| panic!("{e}"))
}

fn one_of<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    match objects
        .iter()
        .filter(|o| o["kind"] == kind)
        .collect::<Vec<_>>()[..]
    {
        [o] => o,
        ref all => panic!("expected one {kind}, found {}", all.len()),
    }
}

/// `object` without Helm's standard labels, wherever they are (metadata, pod
/// template, selectors).
fn without_helm_labels(object: &Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for label in HELM_LABELS {
                    map.remove(*label);
                }
                for child in map.values_mut() {
                    strip(child);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut object = object.clone();
    strip(&mut object);
    object
}

// --- the chart's files ---------------------------------------------------

/// The files of `dir` ending in `.json`, by name.
fn json_files(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                read(&p),
            )
        })
        .collect()
}

/// The image tag defaults to the appVersion: the crate's version, the tag deploy/
/// and the Dockerfile's instructions use.
#[test]
fn the_chart_s_app_version_is_the_crate_version() {
    let chart_yaml = read(&chart().join("Chart.yaml"));
    let app_version = format!("appVersion: \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(
        chart_yaml.lines().any(|l| l == app_version),
        "{CHART}/Chart.yaml lacks `{app_version}`; run `cargo xtask generate`"
    );
}

#[test]
fn schema_and_values_yaml_name_the_same_keys() {
    // values.yaml documents every value; the schema refuses what it does not know.
    // Each key of one must be in the other, wherever the schema is closed.
    fn walk(schema: &Value, values: &Value, at: &str, problems: &mut Vec<String>) {
        let Some(properties) = schema["properties"].as_object() else {
            return;
        };
        let Some(values) = values.as_object() else {
            problems.push(format!(
                "{at}: the schema has properties, values.yaml no map"
            ));
            return;
        };
        if schema["additionalProperties"] == false {
            for key in values.keys() {
                if !properties.contains_key(key) {
                    problems.push(format!("{at}.{key}: in values.yaml, not in the schema"));
                }
            }
        }
        for (key, property) in properties {
            match values.get(key) {
                Some(value) => walk(property, value, &format!("{at}.{key}"), problems),
                None => problems.push(format!("{at}.{key}: in the schema, not in values.yaml")),
            }
        }
    }
    let schema: Value = serde_json::from_str(&read(&chart().join("values.schema.json"))).unwrap();
    let values = yaml(&read(&chart().join("values.yaml")), "values.yaml");
    assert_eq!(schema["additionalProperties"], false);
    let mut problems = Vec::new();
    walk(&schema, &values, "", &mut problems);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// --- lint, render, validate ---------------------------------------------

#[test]
fn helm_lint_finds_nothing_to_report_in_any_variant() {
    let renders = renders();
    assert!(renders.sdk.starts_with("v4."), "Helm SDK {}", renders.sdk);
    for (variant, report) in VARIANTS.iter().zip(&renders.lints) {
        // Severity 1 is information ("icon is recommended"); 2 a warning, 3 an
        // error. Linted strict: warnings fail.
        let serious: Vec<&Value> = report["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["severity"].as_u64().unwrap_or(3) > 1)
            .collect();
        assert!(
            serious.is_empty() && report["errors"].as_array().is_none_or(Vec::is_empty),
            "{}: helm lint --strict: {report}",
            variant.name
        );
        assert_eq!(report["total_charts_linted"], 1);
    }
}

#[test]
fn every_render_validates_against_the_kubernetes_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, rendered) in renders().renders.iter().enumerate() {
        // Helm's output as `helm template` prints it, comments and all.
        let text: Vec<&str> = rendered
            .manifests
            .iter()
            .filter(|(template, _)| !template.ends_with("NOTES.txt"))
            .map(|(_, text)| text.as_str())
            .collect();
        let path = dir.path().join(format!("variant-{i}.yaml"));
        std::fs::write(&path, text.join("\n---\n")).unwrap();
        files.push((path, rendered));
    }
    let validate = std::env::var_os("KUBERNETES_VALIDATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| "kubernetes-validate".into());
    let mut command = Command::new(validate);
    command.arg("--strict");
    for version in KUBERNETES_VERSIONS {
        command.args(["-k", version]);
    }
    command.args(files.iter().map(|(path, _)| path));
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "kubernetes-validate is needed ({e}); scripts/test installs it, or set KUBERNETES_VALIDATE"
        )
    });
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("INFO ") || l.starts_with("WARN ")),
        "{report}"
    );
    for (path, rendered) in &files {
        let file = path.to_string_lossy();
        assert!(!rendered.objects.is_empty());
        for object in &rendered.objects {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            if CUSTOM_KINDS.contains(&kind) {
                // No schema: checked by the test below instead.
                assert!(
                    lines.iter().any(|l| l.starts_with(&format!("WARN {file} "))
                        && l.contains(&format!("kind {kind} "))),
                    "{report}"
                );
                continue;
            }
            for version in KUBERNETES_VERSIONS {
                let minor = version.trim_end_matches(".0");
                let passed = format!(
                    "INFO {file} passed for resource {}/{name} against version {minor}",
                    kind.to_lowercase()
                );
                assert!(
                    lines.contains(&passed.as_str()),
                    "{}: missing `{passed}` in\n{report}",
                    rendered.variant.name
                );
            }
        }
    }
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not a map: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn within(v: &Value, allowed: &[&str], what: &str) {
    let unknown: Vec<&str> = keys(v)
        .into_iter()
        .filter(|k| !allowed.contains(k))
        .collect();
    assert!(unknown.is_empty(), "{what}: unknown fields {unknown:?}");
}

#[test]
fn custom_resources_use_only_fields_their_apis_define() {
    // kubernetes-validate has no schema for them: their fields are checked here
    // against monitoring.coreos.com/v1 and autoscaling.k8s.io/v1, as
    // tests/artifacts/deploy.rs does for the kustomize base (a hand-kept list of the fields
    // the chart can emit, not the operators' schemas).
    let mut seen = BTreeSet::new();
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        for object in &rendered.objects {
            let kind = object["kind"].as_str().unwrap();
            if !CUSTOM_KINDS.contains(&kind) {
                continue;
            }
            seen.insert(kind);
            within(object, &["apiVersion", "kind", "metadata", "spec"], kind);
            within(
                &object["metadata"],
                &["name", "namespace", "labels", "annotations"],
                kind,
            );
            for map in ["labels", "annotations"] {
                if let Some(m) = object["metadata"].get(map) {
                    assert!(m.as_object().unwrap().values().all(Value::is_string));
                }
            }
            let spec = &object["spec"];
            match kind {
                "ServiceMonitor" => {
                    assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
                    within(spec, &["jobLabel", "selector", "endpoints"], what);
                    for endpoint in spec["endpoints"].as_array().unwrap() {
                        within(
                            endpoint,
                            &[
                                "port",
                                "path",
                                "interval",
                                "scrapeTimeout",
                                "honorLabels",
                                "scheme",
                                "tlsConfig",
                                "basicAuth",
                                "relabelings",
                                "metricRelabelings",
                            ],
                            what,
                        );
                        for duration in ["interval", "scrapeTimeout"] {
                            if let Some(d) = endpoint.get(duration) {
                                assert!(d.as_str().is_some_and(is_duration), "{what}: {d}");
                            }
                        }
                        if let Some(scheme) = endpoint.get("scheme") {
                            assert!(scheme == "http" || scheme == "https", "{what}");
                        }
                        if let Some(tls) = endpoint.get("tlsConfig") {
                            // SafeTLSConfig and the file-based fields of TLSConfig.
                            within(
                                tls,
                                &[
                                    "ca",
                                    "cert",
                                    "keySecret",
                                    "serverName",
                                    "insecureSkipVerify",
                                    "caFile",
                                    "certFile",
                                    "keyFile",
                                    "minVersion",
                                    "maxVersion",
                                ],
                                what,
                            );
                        }
                        if let Some(auth) = endpoint.get("basicAuth") {
                            within(auth, &["username", "password"], what);
                            for part in ["username", "password"] {
                                within(&auth[part], &["name", "key", "optional"], what);
                            }
                        }
                        for list in ["relabelings", "metricRelabelings"] {
                            for relabeling in endpoint.get(list).into_iter().flat_map(|l| {
                                l.as_array().unwrap_or_else(|| panic!("{what}: {list}"))
                            }) {
                                within(
                                    relabeling,
                                    &[
                                        "sourceLabels",
                                        "separator",
                                        "targetLabel",
                                        "regex",
                                        "modulus",
                                        "replacement",
                                        "action",
                                    ],
                                    what,
                                );
                            }
                        }
                    }
                }
                "PrometheusRule" => {
                    assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
                    within(spec, &["groups"], what);
                    for group in spec["groups"].as_array().unwrap() {
                        within(group, &["name", "interval", "rules"], what);
                        assert!(!group["rules"].as_array().unwrap().is_empty());
                        for rule in group["rules"].as_array().unwrap() {
                            within(
                                rule,
                                &[
                                    "alert",
                                    "expr",
                                    "for",
                                    "keep_firing_for",
                                    "labels",
                                    "annotations",
                                ],
                                what,
                            );
                            for duration in ["for", "keep_firing_for"] {
                                if let Some(d) = rule.get(duration) {
                                    assert!(d.as_str().is_some_and(is_duration), "{what}: {d}");
                                }
                            }
                            for map in ["labels", "annotations"] {
                                assert!(
                                    rule[map]
                                        .as_object()
                                        .unwrap()
                                        .values()
                                        .all(Value::is_string),
                                    "{what}: {rule}"
                                );
                            }
                        }
                    }
                }
                "VerticalPodAutoscaler" => {
                    assert_eq!(object["apiVersion"], "autoscaling.k8s.io/v1");
                    within(
                        spec,
                        &[
                            "targetRef",
                            "recommenders",
                            "updatePolicy",
                            "resourcePolicy",
                        ],
                        what,
                    );
                    let workload = rendered.workload();
                    assert_eq!(
                        spec["targetRef"],
                        json!({"apiVersion": "apps/v1", "kind": workload["kind"], "name": workload["metadata"]["name"]})
                    );
                    for policy in spec["resourcePolicy"]["containerPolicies"]
                        .as_array()
                        .unwrap()
                    {
                        within(
                            policy,
                            &[
                                "containerName",
                                "mode",
                                "minAllowed",
                                "maxAllowed",
                                "controlledResources",
                                "controlledValues",
                            ],
                            what,
                        );
                        assert_eq!(policy["containerName"], rendered.container()["name"]);
                    }
                }
                _ => unreachable!(),
            }
        }
    }
    assert_eq!(seen.len(), CUSTOM_KINDS.len(), "{seen:?}");
}

/// A Prometheus duration, as the operator's schema requires.
fn is_duration(text: &str) -> bool {
    if text == "0" {
        return true;
    }
    let mut rest = text;
    let mut parts = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let unit = ["ms", "s", "m", "h", "d", "w", "y"]
            .into_iter()
            .find(|u| rest[digits..].starts_with(u));
        match unit {
            Some(u) if digits > 0 => rest = &rest[digits + u.len()..],
            _ => return false,
        }
        parts += 1;
    }
    parts > 0
}

// --- the same exporter as the kustomize base -----------------------------

#[test]
fn the_default_render_is_the_kustomize_base_but_for_helm_s_labels() {
    let base = kustomized("deploy");
    let chart = default_render();
    // The same objects but for the Namespace, which `helm install
    // --create-namespace` makes (the base's also enforces the restricted Pod
    // Security Standard: label it yourself, deploy/README.md).
    for kind in [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Service",
        "Deployment",
    ] {
        assert_eq!(
            without_helm_labels(chart.one(kind)),
            *one_of(&base, kind),
            "{kind}: the chart's and deploy/base's differ"
        );
    }
    // Helm's standard labels are all it adds: every object carries them.
    for object in &chart.objects {
        let labels = &object["metadata"]["labels"];
        for label in HELM_LABELS {
            assert!(labels.get(*label).is_some(), "{label} on {object}");
        }
        assert_eq!(labels["app.kubernetes.io/instance"], RELEASE);
        assert_eq!(
            labels["app.kubernetes.io/version"],
            env!("CARGO_PKG_VERSION")
        );
    }

    // The Prometheus Operator's objects are opt-in, as in deploy/: with them on,
    // the ServiceMonitor is the overlay's endpoint, the job named by a label (the
    // release's name could differ from the job the alerts expect).
    let operator = kustomized("deploy/overlays/prometheus-operator");
    let with_operator = variant("with the Prometheus Operator");
    let mut monitor = without_helm_labels(with_operator.one("ServiceMonitor"));
    assert_eq!(
        monitor["spec"]
            .as_object_mut()
            .unwrap()
            .remove("jobLabel")
            .expect("jobLabel"),
        "app.kubernetes.io/name"
    );
    assert_eq!(monitor, *one_of(&operator, "ServiceMonitor"));

    // The PrometheusRule: the base's groups, whose runbook links point at the
    // exporter's own /runbooks through a port-forward, as deploy/ does.
    assert_eq!(
        with_operator.one("PrometheusRule")["spec"],
        one_of(&operator, "PrometheusRule")["spec"]
    );

    // The dashboards: the files of dashboards/, as they are.
    let files = json_files(&root().join(DASHBOARDS));
    let maps = chart.find("ConfigMap");
    assert_eq!(maps.len(), files.len());
    for (name, text) in &files {
        let map = maps
            .iter()
            .find(|m| m["data"].get(name).is_some())
            .unwrap_or_else(|| panic!("no ConfigMap holds {name}"));
        assert_eq!(map["data"][name].as_str(), Some(text.as_str()), "{name}");
        assert_eq!(map["data"].as_object().unwrap().len(), 1);
        assert_eq!(map["metadata"]["labels"]["grafana_dashboard"], "1");
        assert_eq!(map["metadata"]["namespace"], NAMESPACE);
    }
    let kinds: BTreeSet<&str> = chart
        .objects
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from([
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "Deployment",
            "Service",
            "ServiceAccount"
        ]),
        "by default: built-in kinds only (it installs without the Prometheus Operator's CRDs); no NetworkPolicy, PodDisruptionBudget or VerticalPodAutoscaler"
    );
}

#[test]
fn the_sharded_render_is_the_sharded_overlay_but_for_helm_s_labels() {
    let overlay = kustomized("deploy/overlays/sharded");
    let sharded = variant("sharded");
    assert!(sharded.find("Deployment").is_empty());
    assert_eq!(
        without_helm_labels(sharded.one("StatefulSet")),
        *one_of(&overlay, "StatefulSet")
    );
    assert_eq!(
        without_helm_labels(sharded.one("Service")),
        *one_of(&overlay, "Service")
    );
}

// --- in every render -----------------------------------------------------

#[test]
fn rbac_is_the_base_s_read_only_cluster_role_in_every_render() {
    let base = kustomized("deploy");
    // deploy/base/rbac.yaml's rules, which tests/artifacts/deploy.rs derives from the
    // exporter's watched kinds: the one source of what the exporter may read.
    let expected = &one_of(&base, "ClusterRole")["rules"];
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        assert!(rendered.find("Role").is_empty() && rendered.find("RoleBinding").is_empty());
        let pod = &rendered.workload()["spec"]["template"]["spec"];
        let account = pod["serviceAccountName"].as_str().expect("an account");
        if what == "an existing service account" {
            assert!(rendered.find("ClusterRole").is_empty(), "{what}");
            assert!(rendered.find("ServiceAccount").is_empty(), "{what}");
            assert_eq!(account, "lifecycle-reader");
            continue;
        }
        let role = rendered.one("ClusterRole");
        assert_eq!(role["rules"], *expected, "{what}");
        for rule in role["rules"].as_array().unwrap() {
            assert_eq!(
                keys(rule),
                BTreeSet::from(["apiGroups", "resources", "verbs"]),
                "{what}: no resourceNames, no nonResourceURLs"
            );
            assert!(
                strings(&rule["verbs"])
                    .iter()
                    .all(|v| v == "list" || v == "watch"),
                "{what}: read-only"
            );
            for resource in strings(&rule["resources"]) {
                assert!(
                    !["secrets", "configmaps", "*"].contains(&resource.as_str())
                        && !resource.contains('/'),
                    "{what}: {resource}"
                );
            }
        }
        let binding = rendered.one("ClusterRoleBinding");
        let service_account = rendered.one("ServiceAccount");
        assert_eq!(service_account["metadata"]["name"], account);
        assert_eq!(service_account["automountServiceAccountToken"], false);
        assert_eq!(
            binding["roleRef"],
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role["metadata"]["name"]})
        );
        assert_eq!(
            binding["subjects"],
            json!([{"kind": "ServiceAccount", "name": account, "namespace": rendered.variant.namespace}]),
            "{what}"
        );
    }
}

#[test]
fn every_render_s_pod_is_as_hardened_as_the_base_s() {
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        let pod = &rendered.workload()["spec"]["template"]["spec"];
        let container = rendered.container();
        for key in ["hostNetwork", "hostPID", "hostIPC"] {
            assert!(pod.get(key).is_none(), "{what}: {key}");
        }
        assert_eq!(pod["automountServiceAccountToken"], false, "{what}");
        let security = &pod["securityContext"];
        assert_eq!(security["runAsNonRoot"], true, "{what}");
        assert_eq!(security["runAsUser"], 65532, "{what}");
        assert_eq!(
            security["seccompProfile"]["type"], "RuntimeDefault",
            "{what}"
        );
        assert_eq!(
            container["securityContext"],
            json!({"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true, "capabilities": {"drop": ["ALL"]}}),
            "{what}"
        );
        // The short-lived token at the standard path; other volumes only from
        // Secrets (the web configuration), read-only.
        let volumes = pod["volumes"].as_array().unwrap();
        assert_eq!(volumes[0]["name"], "api-token");
        assert!(volumes[0]["projected"]["sources"][0]["serviceAccountToken"].is_object());
        for volume in &volumes[1..] {
            assert_eq!(keys(volume), BTreeSet::from(["name", "secret"]), "{what}");
        }
        for mount in container["volumeMounts"].as_array().unwrap() {
            assert_eq!(mount["readOnly"], true, "{what}: {mount}");
        }
        assert_eq!(
            container["volumeMounts"][0],
            json!({"name": "api-token", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true})
        );
    }
}

/// `kube-lifecycle-exporter serve --help`.
fn serve_help() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kube-lifecycle-exporter"))
        .args(["serve", "--help"])
        .output()
        .expect("the binary runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

#[test]
fn every_flag_the_chart_passes_is_one_the_exporter_takes() {
    let help = serve_help();
    let mut flags = BTreeSet::new();
    for rendered in &renders().renders {
        let args = rendered.args();
        assert_eq!(args[0], "serve", "{}", rendered.variant.name);
        for arg in &args[1..] {
            let flag = arg
                .strip_prefix("--")
                .unwrap_or_else(|| panic!("{}: {arg} is not a --flag=value", rendered.variant.name))
                .split('=')
                .next()
                .unwrap();
            assert!(
                help.contains(&format!("--{flag} ")) || help.contains(&format!("--{flag}=")),
                "{}: --{flag} is not in `serve --help`",
                rendered.variant.name
            );
            flags.insert(flag.to_string());
        }
    }
    // Every first-class value reached the exporter in some variant.
    for flag in [
        "listen",
        "log-format",
        "log-level",
        "namespace",
        "exclude-namespace",
        "unscheduled-after",
        "creating-after",
        "watch-timeout",
        "event-max-age",
        "runbook-base-url",
        "web.config.file",
        "total-shards",
        "shard-from-pod-name",
    ] {
        assert!(
            flags.contains(flag),
            "no variant passes --{flag}: {flags:?}"
        );
    }
}

#[test]
fn values_become_the_flags_they_name() {
    let every = variant("every option");
    assert_eq!(
        every.args(),
        [
            "serve",
            "--listen=0.0.0.0:9096",
            "--log-format=text",
            "--log-level=debug",
            "--namespace=shop",
            "--namespace=payments",
            "--exclude-namespace=kube-system",
            "--exclude-namespace=kube-public",
            "--unscheduled-after=10m",
            "--creating-after=15m",
            "--watch-timeout=120s",
            "--runbook-base-url=https://runbooks.example.com/kube-lifecycle",
            "--event-max-age=2h",
        ]
    );
    let container = every.container();
    assert_eq!(
        container["image"],
        "registry.example.com/infra/kube-lifecycle-exporter:0.1.0-rc1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    );
    assert_eq!(container["imagePullPolicy"], "Always");
    assert_eq!(
        container["env"],
        json!([{"name": "RUST_BACKTRACE", "value": "1"}])
    );
    let pod = &every.workload()["spec"]["template"]["spec"];
    assert_eq!(
        pod["imagePullSecrets"],
        json!([{"name": "global-pull"}, {"name": "pull"}, {"name": "other-pull"}])
    );
    assert_eq!(pod["priorityClassName"], "system-cluster-critical");
    for key in ["tolerations", "affinity", "topologySpreadConstraints"] {
        assert!(pod.get(key).is_some(), "{key}");
    }
    let service = every.one("Service");
    assert_eq!(service["spec"]["type"], "NodePort");
    assert_eq!(
        service["spec"]["ports"],
        json!([{"name": "metrics", "port": 80, "targetPort": "metrics", "protocol": "TCP", "nodePort": 30096}])
    );
    assert_eq!(
        every.one("PodDisruptionBudget")["spec"],
        json!({"maxUnavailable": 1, "selector": every.workload()["spec"]["selector"]})
    );
    let policy = every.one("NetworkPolicy");
    assert_eq!(
        policy["spec"]["podSelector"],
        every.workload()["spec"]["selector"]
    );
    assert_eq!(policy["spec"]["policyTypes"], json!(["Ingress", "Egress"]));

    let named = variant("custom namespace");
    assert!(
        named.args().contains(&"--namespace=monitoring".to_string()),
        "releaseNamespace"
    );
    let sharded = variant("sharded");
    assert_eq!(sharded.workload()["spec"]["replicas"], 3);
    assert!(sharded.args().contains(&"--total-shards=3".to_string()));
}

#[test]
fn every_object_is_in_the_release_s_namespace_and_named_after_it() {
    for rendered in &renders().renders {
        let fullname = if rendered.variant.release.contains("kube-lifecycle-exporter") {
            rendered.variant.release.to_string()
        } else {
            format!("{}-kube-lifecycle-exporter", rendered.variant.release)
        };
        for object in &rendered.objects {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            let namespace = &object["metadata"]["namespace"];
            match kind {
                "ClusterRole" | "ClusterRoleBinding" => assert!(namespace.is_null()),
                // dashboards.namespace moves them.
                "ConfigMap" if rendered.variant.name == "custom namespace" => {
                    assert_eq!(namespace, "grafana")
                }
                _ => assert_eq!(namespace, rendered.variant.namespace, "{kind} {name}"),
            }
            if kind != "ServiceAccount" {
                assert!(
                    name.starts_with(&fullname),
                    "{}: {kind} {name}",
                    rendered.variant.name
                );
            }
            let labels = &object["metadata"]["labels"];
            assert_eq!(
                labels["app.kubernetes.io/instance"],
                rendered.variant.release
            );
            if rendered.variant.name == "custom labels" {
                assert_eq!(labels["team"], "platform", "{kind} {name}");
            }
        }
    }
    let labelled = variant("custom labels");
    let template = &labelled.workload()["spec"]["template"];
    assert_eq!(
        template["metadata"]["labels"]["sidecar.istio.io/inject"],
        "false"
    );
    assert_eq!(
        template["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"],
        "true"
    );
    for kind in ["ServiceMonitor", "PrometheusRule"] {
        assert_eq!(
            labelled.one(kind)["metadata"]["labels"]["release"],
            "kube-prometheus-stack"
        );
    }
    for map in labelled.find("ConfigMap") {
        assert_eq!(
            map["metadata"]["labels"]["grafana_dashboard_lifecycle"],
            "yes"
        );
        assert!(map["metadata"]["labels"].get("grafana_dashboard").is_none());
        assert_eq!(
            map["metadata"]["annotations"]["grafana_folder"],
            "Kubernetes"
        );
    }
}

#[test]
fn the_scrape_reaches_the_exporter_s_port_as_the_job_the_alerts_select() {
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        let workload = rendered.workload();
        let service = rendered.one("Service");
        let pod_labels = &workload["spec"]["template"]["metadata"]["labels"];
        for (key, value) in service["spec"]["selector"].as_object().unwrap() {
            assert_eq!(&pod_labels[key], value, "{what}: Service selector {key}");
        }
        assert_eq!(
            rendered.container()["ports"],
            json!([{"name": "metrics", "containerPort": 9096, "protocol": "TCP"}])
        );
        assert!(
            rendered
                .args()
                .contains(&"--listen=0.0.0.0:9096".to_string())
        );
        assert_eq!(service["spec"]["ports"][0]["targetPort"], "metrics");
        let https = what == "web config";

        if rendered.variant.values.contains("prometheusScrape: true") {
            let annotations = &service["metadata"]["annotations"];
            assert_eq!(annotations["prometheus.io/scrape"], "true");
            assert_eq!(
                annotations["prometheus.io/port"],
                service["spec"]["ports"][0]["port"].to_string()
            );
            assert_eq!(
                annotations["prometheus.io/scheme"],
                if https { "https" } else { "http" }
            );
        }
        let monitors = rendered.find("ServiceMonitor");
        let Some(monitor) = monitors.first() else {
            continue;
        };
        for (key, value) in monitor["spec"]["selector"]["matchLabels"]
            .as_object()
            .unwrap()
        {
            assert_eq!(
                &service["metadata"]["labels"][key], value,
                "{what}: ServiceMonitor selector {key}"
            );
        }
        let endpoint = &monitor["spec"]["endpoints"][0];
        assert_eq!(endpoint["port"], service["spec"]["ports"][0]["name"]);
        assert_eq!(endpoint["path"], "/metrics");
        assert_eq!(endpoint["honorLabels"], true, "{what}");
        assert_eq!(
            endpoint.get("scheme").and_then(Value::as_str),
            https.then_some("https"),
            "{what}"
        );

        // The job: the value of the Service's jobLabel label (without one, the
        // operator names it after the Service); KubeLifecycleExporterDown selects
        // it, unless told another selector.
        let job = match monitor["spec"].get("jobLabel") {
            Some(label) => service["metadata"]["labels"][label.as_str().unwrap()]
                .as_str()
                .unwrap_or_else(|| panic!("{what}: the Service has no {label} label")),
            None => service["metadata"]["name"].as_str().unwrap(),
        };
        let rules = rendered.find("PrometheusRule");
        let Some(rule) = rules.first() else { continue };
        let down = rule["spec"]["groups"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["rules"].as_array().unwrap())
            .find(|r| r["alert"] == "KubeLifecycleExporterDown")
            .expect("KubeLifecycleExporterDown");
        let expr = down["expr"].as_str().unwrap();
        if what == "severity and for overridden" {
            assert!(
                expr.contains("up{job=\"lifecycle\", namespace=\"monitoring\"}"),
                "{expr}"
            );
        } else {
            assert!(
                expr.contains(&format!("up{{job=\"{job}\"}}")),
                "{what}: {expr}"
            );
        }
    }
}

#[test]
fn the_web_config_secret_is_mounted_where_the_flag_points() {
    let rendered = variant("web config");
    let pod = &rendered.workload()["spec"]["template"]["spec"];
    let container = rendered.container();
    assert!(
        rendered
            .args()
            .contains(&"--web.config.file=/etc/kube-lifecycle-exporter/web/web-config.yml".into())
    );
    assert_eq!(
        pod["volumes"][1],
        json!({"name": "web-config", "secret": {"secretName": "exporter-web-config"}})
    );
    assert_eq!(
        pod["volumes"][2],
        json!({"name": "web-tls", "secret": {"secretName": "exporter-tls"}})
    );
    assert_eq!(
        container["volumeMounts"][1],
        json!({"name": "web-config", "mountPath": "/etc/kube-lifecycle-exporter/web", "readOnly": true})
    );
    assert_eq!(
        container["volumeMounts"][2],
        json!({"name": "web-tls", "mountPath": "/etc/kube-lifecycle-exporter/tls", "readOnly": true})
    );
    // The kubelet probes over TLS (it does not verify the certificate); basic auth
    // leaves /healthz and /readyz open.
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(container[probe]["httpGet"]["scheme"], "HTTPS", "{probe}");
    }
    let endpoint = &rendered.one("ServiceMonitor")["spec"]["endpoints"][0];
    assert_eq!(endpoint["tlsConfig"], json!({"insecureSkipVerify": true}));
    assert_eq!(endpoint["basicAuth"]["username"]["name"], "exporter-scrape");
    // Without it, the probes are the base's.
    let container = default_render().container();
    assert!(
        container["livenessProbe"]["httpGet"]
            .get("scheme")
            .is_none()
    );
}

// --- the rule pack -------------------------------------------------------

/// Alert name → rule, over all groups.
fn alerts(rule: &Value) -> BTreeMap<String, Value> {
    rule["spec"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .map(|r| (r["alert"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
fn severity_for_and_runbooks_are_overridden_as_the_mixin_s_config_allows() {
    let file = yaml(&read(&root().join(RULES)), RULES);
    let original: BTreeMap<String, Value> = alerts(&json!({"spec": file}));
    let changed = alerts(variant("severity and for overridden").one("PrometheusRule"));
    assert!(
        !changed.contains_key("KubeLifecycleWatchRestarting"),
        "enabled: false"
    );
    assert_eq!(changed.len(), original.len() - 1);
    let tiers = BTreeMap::from([
        ("critical", "pager"),
        ("warning", "ticket"),
        ("info", "none"),
    ]);
    for (name, before) in &original {
        let Some(after) = changed.get(name) else {
            continue;
        };
        let mut expected = before.clone();
        let severity = before["labels"]["severity"].as_str().unwrap();
        expected["labels"]["severity"] = json!(tiers[severity]);
        expected.as_object_mut().unwrap().remove("keep_firing_for");
        let url = before["annotations"]["runbook_url"].as_str().unwrap();
        assert_eq!(
            url,
            format!("{RUNBOOK_PLACEHOLDER}/{}", name.to_lowercase())
        );
        expected["annotations"]["runbook_url"] = json!(format!(
            "https://runbooks.example.com/kube-lifecycle/{}",
            name.to_lowercase()
        ));
        let expr = before["expr"].as_str().unwrap();
        expected["expr"] = json!(expr.replace(
            "job=\"kube-lifecycle-exporter\"",
            "job=\"lifecycle\", namespace=\"monitoring\""
        ));
        match name.as_str() {
            "KubeLifecycleDeploymentRecreateBlocked" => {
                expected["labels"]["severity"] = json!("warning");
                expected["for"] = json!("20m");
            }
            "KubeLifecycleDaemonSetUnscheduled" => {
                expected["for"] = json!("30m");
                expected["keep_firing_for"] = json!("10m");
                expected["labels"]["team"] = json!("apps");
            }
            _ => {}
        }
        assert_eq!(after, &expected, "{name}");
    }
}

#[test]
fn promtool_accepts_the_rules_of_every_render() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, rendered) in renders().renders.iter().enumerate() {
        for rule in rendered.find("PrometheusRule") {
            let path = dir.path().join(format!("rules-{i}.yaml"));
            // JSON is YAML.
            std::fs::write(&path, json!({"groups": rule["spec"]["groups"]}).to_string()).unwrap();
            files.push(path);
        }
    }
    assert!(files.len() >= 3);
    let output = Command::new("promtool")
        .args(["check", "rules"])
        .args(&files)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "promtool is needed ({e}); scripts/test installs it (apt-get install prometheus)"
            )
        });
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn notes_say_how_to_reach_the_landing_page_and_which_alerts_are_installed() {
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        let notes = &rendered.notes;
        let service = rendered.one("Service");
        let forward = format!(
            "kubectl -n {} port-forward svc/{} 9096:{}",
            rendered.variant.namespace,
            service["metadata"]["name"].as_str().unwrap(),
            service["spec"]["ports"][0]["port"]
        );
        assert!(
            notes.contains(&forward),
            "{what}: no `{forward}` in\n{notes}"
        );
        assert!(notes.contains("://localhost:9096/"), "{what}");
        match rendered.find("PrometheusRule").first() {
            Some(rule) => {
                let installed = alerts(rule);
                assert!(
                    notes.contains(&format!(
                        "Alerts installed (PrometheusRule {}), {},",
                        rule["metadata"]["name"].as_str().unwrap(),
                        installed.len()
                    )),
                    "{what}: {notes}"
                );
                for (name, alert) in &installed {
                    let line = format!(
                        "    {name} ({}, {})",
                        alert["labels"]["severity"].as_str().unwrap(),
                        alert["for"].as_str().unwrap()
                    );
                    assert!(
                        notes.lines().any(|l| l == line),
                        "{what}: no `{line}` in\n{notes}"
                    );
                }
                if what == "severity and for overridden" {
                    assert!(!notes.contains("KubeLifecycleWatchRestarting"));
                }
            }
            None => assert!(notes.contains("No alerts installed"), "{what}: {notes}"),
        }
    }
}

// --- the schema ----------------------------------------------------------

#[test]
fn values_with_a_typo_or_a_wrong_type_are_refused() {
    // (values file, what the refusal must say)
    let cases: &[(&str, &str)] = &[
        (
            "replica: 3\n",
            "additional properties 'replica' not allowed",
        ),
        (
            "prometheus:\n  monitor:\n    enable: false\n",
            "additional properties 'enable' not allowed",
        ),
        (
            "prometheusRule:\n  alerts:\n    KubeLifecycleNodeLost:\n      severty: warning\n",
            "additional properties 'severty' not allowed",
        ),
        (
            "serviceAccount:\n  annotation: {a: b}\n",
            "additional properties 'annotation' not allowed",
        ),
        ("replicas: \"3\"\n", "/replicas"),
        ("autosharding: true\n", "/autosharding"),
        ("service:\n  port: metrics\n", "/service/port"),
        ("logFormat: logfmt\n", "/logFormat"),
        ("image:\n  pullPolicy: Sometimes\n", "/image/pullPolicy"),
        ("webConfig:\n  enabled: \"true\"\n", "/webConfig/enabled"),
        ("customLabels:\n  team: 7\n", "/customLabels/team"),
        ("extraArgs: --log-level=debug\n", "/extraArgs"),
        (
            "prometheusRule:\n  alerts:\n    KubeLifecycleNodeLost:\n      for: 5 minutes\n",
            "/prometheusRule/alerts/KubeLifecycleNodeLost/for",
        ),
        (
            "prometheusRule:\n  runbookURLPattern: https://runbooks.example.com/\n",
            "/prometheusRule/runbookURLPattern",
        ),
        // Refused by the templates: what a schema cannot know.
        (
            "prometheusRule:\n  enabled: true\n  alerts:\n    KubeLifecycleNodeLosst:\n      for: 5m\n",
            "prometheusRule.alerts.KubeLifecycleNodeLosst: no such alert",
        ),
        (
            "webConfig:\n  enabled: true\n",
            "webConfig.enabled needs webConfig.existingSecret",
        ),
        (
            "prometheus:\n  monitor:\n    enabled: true\n    jobLabel: team\nprometheusRule:\n  enabled: true\n",
            "prometheus.monitor.jobLabel: the Service has no label team",
        ),
    ];
    let request: Vec<Value> = cases
        .iter()
        .map(|(values, _)| json!({"values": values, "name": RELEASE, "namespace": NAMESPACE}))
        .collect();
    let answer = sdk(&json!({"chart": chart(), "renders": request, "lints": []}));
    for ((values, refusal), render) in cases.iter().zip(answer["renders"].as_array().unwrap()) {
        let error = render["error"]
            .as_str()
            .unwrap_or_else(|| panic!("accepted:\n{values}"));
        assert!(
            error.contains(refusal),
            "refused, but not saying `{refusal}`:\n{values}\n{error}"
        );
    }
}
