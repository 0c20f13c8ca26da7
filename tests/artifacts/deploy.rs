//! deploy/: the kustomize base, its overlays and the all-in-one file.
//!
//! What is generated (the PrometheusRule from alerts/, the dashboard ConfigMaps
//! from dashboards/, the all-in-one file from the base) is written by `cargo xtask
//! generate` (xtask/src/deploy.rs; scripts/test runs its `--check`); here it must
//! mean what it is made from. Every kustomization is rendered
//! (tests/deploy/kustomize.rs, and `kubectl kustomize` when kubectl is installed)
//! and validated against the Kubernetes schemas with `kubernetes-validate`, which
//! `scripts/test` installs. The ClusterRole is compared with what the code
//! watches, the workload with the restricted Pod Security Standard, and its flags
//! and probes with the real binary.

use crate::common;
use crate::generate;
use crate::kustomize;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::exporter::{BIN, Exporter};
use generate::{ALL_IN_ONE, NAMESPACE, PROMETHEUS_RULE, RULES};
use kube_lifecycle_exporter::source::watch::{VERBS, watched_resources};
use serde_json::{Value, json};

const OVERLAYS: &[&str] = &[
    "deploy/overlays/prometheus-operator",
    "deploy/overlays/kube-prometheus-stack",
    "deploy/overlays/sharded",
    "deploy/overlays/without-prometheus-operator",
];
/// The kinds kubernetes-validate has no schema for: the Prometheus Operator's.
const CUSTOM_KINDS: &[&str] = &["ServiceMonitor", "PrometheusRule"];
/// The oldest and newest Kubernetes versions whose schemas kubernetes-validate
/// 1.37 ships (it has 1.25 to 1.37).
const KUBERNETES_VERSIONS: &[&str] = &["1.25.0", "1.37.0"];
/// The API server's limit on the size of all annotations of an object, which
/// `kubectl apply`'s last-applied-configuration must fit in.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn render(relative: &str) -> Vec<Value> {
    kustomize::render(&root().join(relative)).unwrap_or_else(|e| panic!("{e}"))
}

fn base() -> Vec<Value> {
    render("deploy")
}

/// The opt-in overlay for the Prometheus Operator: the default and its two kinds.
fn operator() -> Vec<Value> {
    render("deploy/overlays/prometheus-operator")
}

fn find<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    match find(objects, kind)[..] {
        [o] => o,
        ref all => panic!("expected one {kind}, found {}", all.len()),
    }
}

fn yaml(text: &str, what: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The dashboard files, sorted by name.
fn dashboard_files() -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("dashboards"))
        .expect("dashboards/")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no dashboards");
    names
        .into_iter()
        .map(|n| {
            let text = read(&format!("dashboards/{n}"));
            (n, text)
        })
        .collect()
}

#[test]
fn the_all_in_one_file_is_the_rendered_base_namespace_first() {
    let all_in_one = kustomize::documents(&read(ALL_IN_ONE), ALL_IN_ONE).unwrap();
    let ids = |objects: &[Value]| objects.iter().map(kustomize::id).collect::<Vec<_>>();
    let base = base();
    assert_eq!(
        ids(&all_in_one),
        ids(&base),
        "{ALL_IN_ONE}: objects and order"
    );
    for (shipped, rendered) in all_in_one.iter().zip(&base) {
        assert!(
            shipped == rendered,
            "{ALL_IN_ONE}: {} differs from the base",
            kustomize::id(shipped)
        );
    }
    // `kubectl apply -f` creates in file order: the namespace must exist first.
    assert_eq!(all_in_one[0]["kind"], "Namespace");
    for object in &all_in_one[1..] {
        let namespace = &object["metadata"]["namespace"];
        assert!(
            namespace.is_null() || *namespace == NAMESPACE,
            "{} is in {namespace}",
            kustomize::id(object)
        );
    }
}

#[test]
fn the_prometheus_rule_is_the_rule_file_with_runbook_links_substituted() {
    let mut expected = yaml(&read(RULES), RULES)["groups"].clone();
    let mut substituted = 0;
    for group in expected.as_array_mut().expect("groups") {
        for rule in group["rules"].as_array_mut().expect("rules") {
            if let Some(url) = rule["annotations"]["runbook_url"].as_str() {
                let alert = rule["alert"].as_str().expect("an alert name");
                assert_eq!(
                    url,
                    format!("{}/{}", generate::RUNBOOK_PLACEHOLDER, alert.to_lowercase())
                );
                rule["annotations"]["runbook_url"] = json!(format!(
                    "{}/{}",
                    generate::RUNBOOK_BASE,
                    alert.to_lowercase()
                ));
                substituted += 1;
            }
        }
    }
    assert!(substituted > 20, "only {substituted} runbook links");
    let objects = operator();
    let rule = one(&objects, "PrometheusRule");
    assert_eq!(rule["spec"]["groups"], expected);
    assert_eq!(
        rule["spec"].as_object().unwrap().len(),
        1,
        "spec: only groups"
    );
    assert!(!read(PROMETHEUS_RULE).contains(generate::RUNBOOK_PLACEHOLDER));
}

#[test]
fn dashboards_are_config_maps_for_the_grafana_sidecar() {
    let objects = base();
    let maps = find(&objects, "ConfigMap");
    let files = dashboard_files();
    assert_eq!(maps.len(), files.len());
    for (file, text) in &files {
        let original: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let map = maps
            .iter()
            .find(|m| m["data"].get(file).is_some())
            .unwrap_or_else(|| panic!("no ConfigMap holds {file}"));
        assert_eq!(map["metadata"]["labels"]["grafana_dashboard"], "1");
        assert_eq!(map["data"].as_object().unwrap().len(), 1);
        let shipped: Value = serde_json::from_str(map["data"][file].as_str().expect("a string"))
            .unwrap_or_else(|e| panic!("{file} in its ConfigMap: {e}"));
        assert_eq!(shipped, original, "{file}");
    }
}

#[test]
fn minify_drops_only_whitespace_between_tokens() {
    let json = "{ \"a\" : [1, 2],\n  \"b\": \"x \\\" y\\\\\" , \"c\": \" \" }";
    assert_eq!(
        generate::minify(json),
        r#"{"a":[1,2],"b":"x \" y\\","c":" "}"#
    );
}

#[test]
fn every_object_fits_kubectl_apply_s_annotation() {
    for object in base() {
        let size = serde_json::to_string(&object).unwrap().len();
        // A quarter of the limit stays for the object's other annotations
        // (the ConfigMaps carry none but the Grafana sidecar's label).
        assert!(
            size < ANNOTATIONS_LIMIT * 3 / 4,
            "{} is {size} bytes: client-side `kubectl apply` copies it into an annotation (256 KiB for all)",
            kustomize::id(&object)
        );
    }
}

#[test]
fn the_cluster_role_grants_list_and_watch_on_exactly_what_the_exporter_watches() {
    let expected: BTreeSet<(String, String, String)> = watched_resources()
        .into_iter()
        .flat_map(|(group, resource)| {
            VERBS
                .iter()
                .map(move |verb| (group.to_string(), resource.to_string(), verb.to_string()))
        })
        .collect();
    assert!(
        expected.iter().any(|(_, r, _)| r == "events") && expected.len() >= 16,
        "{expected:?}"
    );
    let objects = base();
    assert!(find(&objects, "Role").is_empty() && find(&objects, "RoleBinding").is_empty());
    let role = one(&objects, "ClusterRole");
    let mut granted = BTreeSet::new();
    for rule in role["rules"].as_array().expect("rules") {
        let keys: BTreeSet<&str> = rule
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from(["apiGroups", "resources", "verbs"]),
            "no resourceNames, no nonResourceURLs: {rule}"
        );
        let list = |key: &str| -> Vec<String> {
            rule[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        for group in list("apiGroups") {
            for resource in list("resources") {
                for verb in list("verbs") {
                    assert!(
                        granted.insert((group.clone(), resource.clone(), verb)),
                        "granted twice: {group}/{resource}"
                    );
                }
            }
        }
    }
    let extra: Vec<_> = granted.difference(&expected).collect();
    let missing: Vec<_> = expected.difference(&granted).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "ClusterRole grants more than the code watches: {extra:?}; less: {missing:?}"
    );

    let account = one(&objects, "ServiceAccount");
    let binding = one(&objects, "ClusterRoleBinding");
    assert_eq!(binding["roleRef"]["kind"], "ClusterRole");
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    assert_eq!(
        binding["subjects"],
        json!([{"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": NAMESPACE}])
    );
    assert_eq!(account["automountServiceAccountToken"], false);
}

/// `kubectl apply -k deploy` works on a bare cluster: nothing of a CRD, and a
/// Service that annotation-based discovery scrapes; the operator's objects are
/// the opt-in overlay, which adds exactly them.
#[test]
fn the_default_applies_without_the_operator_s_crds_and_the_overlay_adds_them() {
    let default = base();
    let kinds: BTreeSet<&str> = default
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
            "Namespace",
            "Service",
            "ServiceAccount"
        ]),
        "built-in kinds only"
    );
    let service = one(&default, "Service");
    let port = service["spec"]["ports"][0]["port"].to_string();
    assert_eq!(
        service["metadata"]["annotations"],
        json!({"prometheus.io/scrape": "true", "prometheus.io/port": port,
               "prometheus.io/path": "/metrics", "prometheus.io/scheme": "http"})
    );
    let mut with_operator = operator();
    with_operator.retain(|o| !CUSTOM_KINDS.contains(&o["kind"].as_str().unwrap()));
    assert_eq!(with_operator, default);
    for kind in CUSTOM_KINDS {
        assert_eq!(find(&operator(), kind).len(), 1, "{kind}");
    }
    // The README and deploy/README.md say which is for whom, in one table each.
    for doc in ["README.md", "deploy/README.md"] {
        let text = read(doc);
        for command in [
            "| `kubectl apply -k deploy` |",
            "| `kubectl apply -k deploy/overlays/prometheus-operator` |",
            "| `kubectl apply -k deploy/overlays/kube-prometheus-stack` |",
            "| `kubectl apply -k deploy/overlays/sharded` |",
        ] {
            assert!(text.contains(command), "{doc}: no row {command}");
        }
    }
}

#[test]
fn the_overlay_without_the_operator_drops_only_its_custom_resources() {
    let mut expected = operator();
    expected.retain(|o| !CUSTOM_KINDS.contains(&o["kind"].as_str().unwrap()));
    assert_eq!(
        render("deploy/overlays/without-prometheus-operator"),
        expected
    );
}

/// The pod templates of every workload the base and the overlays render.
fn workloads() -> Vec<(String, Value)> {
    let mut all = Vec::new();
    for dir in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        for object in render(dir) {
            if object["kind"] == "Deployment" || object["kind"] == "StatefulSet" {
                all.push((format!("{dir}: {}", kustomize::id(&object)), object));
            }
        }
    }
    assert_eq!(
        all.len(),
        1 + OVERLAYS.len(),
        "one workload per kustomization"
    );
    all
}

fn the_container(pod: &Value) -> &Value {
    let containers = pod["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 1);
    assert!(pod.get("initContainers").is_none());
    &containers[0]
}

fn args(container: &Value) -> Vec<String> {
    container["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("a string").to_string())
        .collect()
}

#[test]
fn workloads_meet_the_restricted_pod_security_standard_and_take_no_more() {
    let objects = base();
    let namespace = one(&objects, "Namespace");
    assert_eq!(
        namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"],
        "restricted"
    );
    let account = one(&objects, "ServiceAccount")["metadata"]["name"].clone();
    for (what, workload) in workloads() {
        let pod = &workload["spec"]["template"]["spec"];
        let security = &pod["securityContext"];
        let container = the_container(pod);
        let own = &container["securityContext"];
        assert_eq!(pod["serviceAccountName"], account, "{what}");
        for key in ["hostNetwork", "hostPID", "hostIPC"] {
            assert!(pod.get(key).is_none(), "{what}: {key}");
        }
        assert_eq!(security["runAsNonRoot"], true, "{what}");
        assert!(
            security["runAsUser"].as_u64().is_some_and(|u| u > 0),
            "{what}"
        );
        assert_eq!(
            security["seccompProfile"]["type"], "RuntimeDefault",
            "{what}"
        );
        assert_eq!(own["allowPrivilegeEscalation"], false, "{what}");
        assert_eq!(own["readOnlyRootFilesystem"], true, "{what}");
        assert_eq!(own["capabilities"], json!({"drop": ["ALL"]}), "{what}");
        assert!(own.get("privileged").is_none_or(|p| *p == false), "{what}");

        // Only a short-lived API token, in the one place the client looks for it.
        assert_eq!(pod["automountServiceAccountToken"], false, "{what}");
        let volumes = pod["volumes"].as_array().expect("volumes");
        assert_eq!(volumes.len(), 1, "{what}: only the token volume");
        let sources = volumes[0]["projected"]["sources"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: a projected volume"));
        let token = sources
            .iter()
            .find_map(|s| s.get("serviceAccountToken"))
            .unwrap_or_else(|| panic!("{what}: a serviceAccountToken source"));
        assert!(
            token.get("audience").is_none(),
            "{what}: the API server's audience"
        );
        assert!(
            token["expirationSeconds"]
                .as_u64()
                .is_some_and(|s| s <= 3600),
            "{what}"
        );
        assert_eq!(
            container["volumeMounts"],
            json!([{"name": volumes[0]["name"], "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}]),
            "{what}"
        );

        let resources = &container["resources"];
        for (group, key) in [
            ("requests", "cpu"),
            ("requests", "memory"),
            ("limits", "memory"),
        ] {
            assert!(
                resources[group][key].is_string(),
                "{what}: resources.{group}.{key}"
            );
        }
    }
}

#[test]
fn the_service_monitor_scrapes_the_exporter_s_port_as_the_alerts_job() {
    let objects = operator();
    let service = one(&objects, "Service");
    let monitor = one(&objects, "ServiceMonitor");
    let deployment = one(&objects, "Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    let container = the_container(pod);

    // Workload → Service → ServiceMonitor: selectors and the port name line up.
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    for (key, value) in service["spec"]["selector"].as_object().unwrap() {
        assert_eq!(&pod_labels[key], value, "Service selector {key}");
    }
    for (key, value) in deployment["spec"]["selector"]["matchLabels"]
        .as_object()
        .unwrap()
    {
        assert_eq!(&pod_labels[key], value, "Deployment selector {key}");
    }
    let selector = &monitor["spec"]["selector"];
    assert_eq!(selector.as_object().unwrap().len(), 1, "{selector}");
    for (key, value) in selector["matchLabels"].as_object().unwrap() {
        assert_eq!(
            &service["metadata"]["labels"][key], value,
            "ServiceMonitor selector {key}"
        );
    }
    assert_eq!(
        monitor["metadata"]["namespace"],
        service["metadata"]["namespace"]
    );
    let endpoints = monitor["spec"]["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 1);
    let endpoint = &endpoints[0];
    assert_eq!(endpoint["honorLabels"], true);
    assert_eq!(endpoint["path"], "/metrics");
    let port = &service["spec"]["ports"][0];
    assert_eq!(endpoint["port"], port["name"]);
    assert_eq!(port["targetPort"], "metrics");
    let container_port = &container["ports"][0];
    assert_eq!(container_port["name"], "metrics");
    let listen = args(container)
        .iter()
        .find_map(|a| a.strip_prefix("--listen=").map(String::from))
        .expect("--listen");
    assert_eq!(
        listen,
        format!("0.0.0.0:{}", container_port["containerPort"]),
        "--listen and the container port"
    );

    // Without `jobLabel` the operator names the job after the Service: the alerts
    // must expect that name.
    assert!(monitor["spec"].get("jobLabel").is_none());
    let job = format!("job=\"{}\"", service["metadata"]["name"].as_str().unwrap());
    assert!(read(RULES).contains(&job), "{RULES} never says {job}");
}

#[test]
fn custom_resources_use_only_fields_the_operator_defines() {
    // kubernetes-validate has no schema for them: their fields are checked here
    // against the Prometheus Operator's monitoring.coreos.com/v1 API.
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
    for dir in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        let objects = render(dir);
        if find(&objects, "ServiceMonitor").is_empty() {
            continue; // the overlay without the operator
        }
        for kind in CUSTOM_KINDS {
            let object = one(&objects, kind);
            within(object, &["apiVersion", "kind", "metadata", "spec"], kind);
            assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
            within(
                &object["metadata"],
                &["name", "namespace", "labels", "annotations"],
                kind,
            );
        }
        let monitor = &one(&objects, "ServiceMonitor")["spec"];
        within(
            monitor,
            &["selector", "endpoints", "namespaceSelector", "jobLabel"],
            "ServiceMonitor spec",
        );
        for endpoint in monitor["endpoints"].as_array().unwrap() {
            within(
                endpoint,
                &["port", "path", "interval", "scrapeTimeout", "honorLabels"],
                "ServiceMonitor endpoint",
            );
            assert!(
                endpoint["interval"]
                    .as_str()
                    .is_some_and(|i| i.ends_with('s'))
            );
        }
        let rule = &one(&objects, "PrometheusRule")["spec"];
        within(rule, &["groups"], "PrometheusRule spec");
        for group in rule["groups"].as_array().unwrap() {
            within(group, &["name", "interval", "rules"], "rule group");
            for r in group["rules"].as_array().unwrap() {
                // keep_firing_for: in the operator's Rule since v0.64.
                within(
                    r,
                    &[
                        "alert",
                        "record",
                        "expr",
                        "for",
                        "keep_firing_for",
                        "labels",
                        "annotations",
                    ],
                    "rule",
                );
                assert!(
                    r["expr"].is_string() && (r["alert"].is_string() || r["record"].is_string())
                );
                for map in ["labels", "annotations"] {
                    if let Some(m) = r.get(map) {
                        assert!(m.as_object().unwrap().values().all(Value::is_string), "{r}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_kube_prometheus_stack_overlay_adds_only_the_release_label() {
    let base = operator();
    let overlay = render("deploy/overlays/kube-prometheus-stack");
    assert_eq!(overlay.len(), base.len());
    for (before, after) in base.iter().zip(&overlay) {
        let mut expected = before.clone();
        if CUSTOM_KINDS.contains(&before["kind"].as_str().unwrap()) {
            expected["metadata"]["labels"]["release"] = json!("kube-prometheus-stack");
        }
        assert_eq!(after, &expected);
    }
}

#[test]
fn the_sharded_overlay_runs_the_deployment_s_pod_as_shards_of_a_stateful_set() {
    let base = base();
    let sharded = render("deploy/overlays/sharded");
    assert!(find(&sharded, "Deployment").is_empty());
    let set = one(&sharded, "StatefulSet");
    let replicas = set["spec"]["replicas"].as_u64().expect("replicas");
    assert!(replicas > 1);
    let deployment = one(&base, "Deployment");
    assert_eq!(set["spec"]["selector"], deployment["spec"]["selector"]);
    assert_eq!(
        set["spec"]["serviceName"],
        one(&base, "Service")["metadata"]["name"]
    );

    // The same pod but for the sharding flags and the pod name they read.
    let mut pod = set["spec"]["template"].clone();
    let container = &mut pod["spec"]["containers"][0];
    let shard_args = vec![
        format!("--total-shards={replicas}"),
        "--shard-from-pod-name=$(POD_NAME)".to_string(),
    ];
    let mut own_args = args(container);
    own_args.retain(|a| !shard_args.contains(a));
    assert_eq!(args(container).len(), own_args.len() + 2, "{shard_args:?}");
    container["args"] = json!(own_args);
    assert_eq!(
        container
            .as_object_mut()
            .unwrap()
            .remove("env")
            .expect("env"),
        json!([{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}])
    );
    assert_eq!(pod, deployment["spec"]["template"]);

    let others = |objects: &[Value]| -> Vec<Value> {
        objects
            .iter()
            .filter(|o| o["kind"] != "Deployment" && o["kind"] != "StatefulSet")
            .cloned()
            .collect()
    };
    assert_eq!(others(&sharded), others(&base));
}

/// `kube-lifecycle-exporter serve --help`.
fn serve_help() -> String {
    let output = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .expect("the binary runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

/// The `--flag` names in `args`.
fn flags(args: &[String]) -> Vec<String> {
    args.iter()
        .filter_map(|a| a.strip_prefix("--"))
        .map(|a| format!("--{}", a.split('=').next().unwrap_or(a)))
        .collect()
}

#[test]
fn every_flag_the_manifests_pass_is_one_the_exporter_takes() {
    let help = serve_help();
    let mut seen = 0;
    for (what, workload) in workloads() {
        let container = the_container(&workload["spec"]["template"]["spec"]);
        let args = args(container);
        assert_eq!(args[0], "serve", "{what}");
        for flag in flags(&args) {
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}=")),
                "{what}: {flag} is not in `serve --help`"
            );
            seen += 1;
        }
    }
    assert!(seen >= 4 + 2, "{seen} flags");
}

#[tokio::test]
async fn the_probes_ask_paths_the_exporter_answers() {
    let objects = base();
    let container = the_container(&one(&objects, "Deployment")["spec"]["template"]["spec"]).clone();
    // The Deployment's own flags but where to listen and where to read from.
    let own: Vec<String> = args(&container)
        .into_iter()
        .skip(1)
        .filter(|a| !a.starts_with("--listen") && !a.starts_with("--log-format"))
        .collect();
    let example = root().join("examples/incidents.yaml");
    let mut all = vec!["--from-file", example.to_str().unwrap()];
    all.extend(own.iter().map(String::as_str));
    let exporter = Exporter::start(&all);
    for probe in ["livenessProbe", "readinessProbe"] {
        let get = &container[probe]["httpGet"];
        assert_eq!(get["port"], "metrics", "{probe}");
        let path = get["path"].as_str().expect("a path");
        let (status, body) = exporter.get(path).await;
        assert_eq!(status, 200, "{probe} {path}: {body}");
    }
    assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
    exporter.terminate();
}

#[test]
fn the_image_tag_is_the_crate_version() {
    for (what, workload) in workloads() {
        let image = the_container(&workload["spec"]["template"]["spec"])["image"]
            .as_str()
            .expect("an image")
            .to_string();
        assert_eq!(
            image,
            format!("kube-lifecycle-exporter:{}", env!("CARGO_PKG_VERSION")),
            "{what}"
        );
    }
}

/// kubernetes-validate, from `$KUBERNETES_VALIDATE` or PATH (`scripts/test`
/// installs it into a virtual environment and puts it on PATH).
fn kubernetes_validate() -> PathBuf {
    std::env::var_os("KUBERNETES_VALIDATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| "kubernetes-validate".into())
}

#[test]
fn every_manifest_validates_against_the_kubernetes_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(PathBuf, Vec<Value>)> = Vec::new();
    for kustomization in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        let objects = render(kustomization);
        let path = dir
            .path()
            .join(format!("{}.yaml", kustomization.replace('/', "_")));
        // JSON documents are YAML.
        let text: Vec<String> = objects.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n---\n")).unwrap();
        files.push((path, objects));
    }
    // The committed all-in-one file as users apply it, comments and all.
    files.push((
        root().join(ALL_IN_ONE),
        kustomize::documents(&read(ALL_IN_ONE), ALL_IN_ONE).unwrap(),
    ));

    let mut command = Command::new(kubernetes_validate());
    command.arg("--strict");
    for version in KUBERNETES_VERSIONS {
        command.args(["-k", version]);
    }
    command.args(files.iter().map(|(path, _)| path));
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "kubernetes-validate is needed ({e}); scripts/test installs it \
             (pip install kubernetes-validate), or set KUBERNETES_VALIDATE"
        )
    });
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // Every object of a kind with a schema passed against each version; only the
    // operator's kinds are skipped (checked by the test above instead).
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("INFO ") || l.starts_with("WARN ")),
        "{report}"
    );
    for (path, objects) in &files {
        let file = path.to_string_lossy();
        for object in objects {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            if CUSTOM_KINDS.contains(&kind) {
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
                    "missing `{passed}` in\n{report}"
                );
            }
        }
    }
}

#[test]
fn kubectl_kustomize_renders_what_the_test_renderer_renders() {
    let Ok(version) = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
    else {
        eprintln!(
            "SKIPPED: kubectl is not installed; tests/deploy/kustomize.rs rendered the kustomizations alone"
        );
        return;
    };
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    // `patches` needs kustomize 3.1; kubectl embeds kustomize 4 or later since 1.21
    // (and says so); an older kubectl cannot render the overlays.
    let kustomize_major = version
        .lines()
        .find_map(|l| l.strip_prefix("Kustomize Version: v"))
        .and_then(|v| v.split('.').next()?.parse::<u32>().ok());
    if kustomize_major.is_none_or(|major| major < 4) {
        eprintln!("SKIPPED: this kubectl embeds no kustomize 4 or later:\n{version}");
        return;
    }
    eprintln!("{}", version.trim());
    for dir in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        let output = Command::new("kubectl")
            .args(["kustomize", dir])
            .current_dir(root())
            .output()
            .expect("kubectl runs");
        assert!(
            output.status.success(),
            "kubectl kustomize {dir}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let rendered = kustomize::documents(&String::from_utf8_lossy(&output.stdout), dir).unwrap();
        assert_eq!(rendered, render(dir), "kubectl kustomize {dir}");
    }
}

#[test]
fn the_test_renderer_refuses_what_it_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  k: v\n",
    );
    let head =
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n";
    let cases = [
        ("namePrefix: x-\n", "not supported"),
        (
            "patches:\n  - target: {kind: ConfigMap}\n    patch: 'x'\n",
            "exactly one",
        ),
        (
            "patches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: a, namespace: ns}\n      data: [1]\n",
            "lists are not supported",
        ),
        (
            "patches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: b, namespace: ns}\n",
            "matches 0 objects",
        ),
    ];
    for (extra, error) in cases {
        write("kustomization.yaml", &format!("{head}{extra}"));
        let err = kustomize::render(dir.path()).expect_err(extra);
        assert!(err.contains(error), "{extra}: {err}");
    }
    write(
        "kustomization.yaml",
        &format!(
            "{head}patches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {{name: a, namespace: ns, labels: {{x: z}}}}\n      data: {{k: w}}\n"
        ),
    );
    assert_eq!(
        kustomize::render(dir.path()).unwrap(),
        vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns", "labels": {"x": "z"}}, "data": {"k": "w"}})
        ]
    );
}
