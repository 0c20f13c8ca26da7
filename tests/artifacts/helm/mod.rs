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

mod chart_files;
mod every_render;
mod kustomize_parity;
mod lint_and_validate;
mod rule_pack;
mod values_schema;

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
/// As tests/artifacts/deploy/: the oldest and newest schemas kubernetes-validate 1.37 has.
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
        name: "--auth kubernetes",
        release: RELEASE,
        namespace: NAMESPACE,
        values: "
auth:
  mode: kubernetes
  tokenAudiences: [kube-lifecycle-exporter]
prometheus:
  monitor:
    enabled: true
",
    },
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

/// The kustomize base (and an overlay), rendered as tests/artifacts/deploy/ does.
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

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not a map: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}
