//! The `diagnose` command end to end: the real binary on the embedded example and
//! on bad input.

use std::process::{Command, Output, Stdio};

use crate::common;

use common::cli::BIN;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");
const NOW: &str = "2024-06-01T00:00:00Z";

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    common::cli::run(args, stdin.unwrap_or_default().as_bytes())
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Every incident of the write-ups, diagnosed with the right cause, and nothing else.
#[test]
fn the_example_gives_one_finding_per_incident_and_none_for_healthy_objects() {
    let out = run(
        &["diagnose", EXAMPLE, "--now", NOW, "--output", "json"],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let got: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "{} {}/{}{} {} {}",
                f["kind"].as_str().unwrap(),
                f["namespace"].as_str().unwrap_or("-"),
                f["name"].as_str().unwrap(),
                f["container"]
                    .as_str()
                    .map(|c| format!("[{c}]"))
                    .unwrap_or_default(),
                f["anomaly"].as_str().unwrap(),
                f["cause"].as_str().unwrap(),
            )
        })
        .collect();
    // The header of the example says what each incident makes, in its order;
    // `diagnose` prints them by anomaly.
    let mut want = common::example::expected().findings;
    let mut got = got;
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

#[test]
fn json_findings_have_exactly_the_documented_keys() {
    let out = run(&["diagnose", EXAMPLE, "--now", NOW, "-o", "json"], None);
    let findings: Vec<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_str(&stdout(&out)).unwrap();
    let keys = [
        "anomaly",
        "cause",
        "container",
        "container_type",
        "kind",
        "message",
        "name",
        "namespace",
        "probe_failure",
        "reasons",
        "runbook",
        "since",
    ];
    for f in &findings {
        let mut got: Vec<&str> = f.keys().map(String::as_str).collect();
        got.sort();
        assert_eq!(got, keys);
        // The command that prints the embedded runbook: it works without a checkout.
        let runbook = f["runbook"].as_str().unwrap();
        assert!(
            runbook.starts_with("kube-lifecycle-exporter runbook KubeLifecycle"),
            "{runbook}"
        );
    }
    let terminating = findings
        .iter()
        .find(|f| f["name"] == "zookeeper-0")
        .unwrap();
    // deletionTimestamp 10:45:07 minus the 30 s grace period.
    assert_eq!(terminating["since"], "2024-05-31T09:44:37Z");
    assert!(
        terminating["message"]
            .as_str()
            .unwrap()
            .contains("KillContainerError")
    );
    let cpu = findings.iter().find(|f| f["name"] == "cpu-hungry").unwrap();
    assert_eq!(
        cpu["reasons"],
        serde_json::json!({"insufficient_cpu": 3, "node_not_ready": 1})
    );
    let namespace = findings.iter().find(|f| f["name"] == "legacy-app").unwrap();
    assert_eq!(namespace["namespace"], serde_json::Value::Null);
    assert_eq!(namespace["container"], serde_json::Value::Null);
}

#[test]
fn runbook_links_follow_a_published_base_url() {
    let out = run(
        &[
            "diagnose",
            EXAMPLE,
            "--now",
            NOW,
            "-o",
            "json",
            "--runbook-base-url",
            "https://runbooks.example.com/kle/",
        ],
        None,
    );
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let zk = findings
        .iter()
        .find(|f| f["name"] == "zookeeper-0")
        .unwrap();
    assert_eq!(
        zk["runbook"],
        "https://runbooks.example.com/kle/kubelifecyclepodterminatingcontainersrunning"
    );
}

#[test]
fn the_table_is_aligned_and_names_every_finding() {
    let out = run(&["diagnose", EXAMPLE, "--now", NOW], None);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let findings = common::exporter::example_findings();
    assert_eq!(lines.len(), findings + 1, "{text}");
    let header = lines[0];
    for column in [
        "NAMESPACE",
        "OBJECT",
        "ANOMALY",
        "CAUSE",
        "AGE",
        "DETAIL",
        "RUNBOOK",
    ] {
        assert!(header.contains(column));
    }
    let cause_at = header.find("CAUSE").unwrap();
    for line in &lines[1..] {
        // Every row starts its CAUSE cell in the header's column.
        let prefix: String = line
            .chars()
            .take(header[..cause_at].chars().count())
            .collect();
        assert!(prefix.ends_with("  "), "misaligned: {line}");
    }
    assert!(text.contains("deployment/crontab-runner"));
    assert!(text.contains("0/4 nodes: 3 insufficient_cpu, 1 node_not_ready"));
    assert!(text.contains("1/3 pods, deployment invoice, quota billing-compute, limits.memory"));
    assert!(
        stderr(&out).contains(&format!("{findings} findings")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn metrics_output_is_openmetrics_with_the_documented_families() {
    let out = run(&["diagnose", EXAMPLE, "--now", NOW, "-o", "metrics"], None);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.ends_with("# EOF\n"));
    assert!(text.contains(
        "kube_lifecycle_pod_terminating_since_timestamp_seconds{namespace=\"middleware\",pod=\"zookeeper-0\",owner_kind=\"StatefulSet\",owner_name=\"zookeeper\",node=\"tke-node\",cause=\"containers_running\"} 1717148677.0"
    ), "{text}");
    assert!(
        text.contains("kube_lifecycle_findings{anomaly=\"image_pull\",cause=\"qps_exceeded\"} 1")
    );
    assert!(text.contains("kube_lifecycle_findings{anomaly=\"image_pull\",cause=\"tls\"} 0"));
    assert!(text.contains(
        "kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds{namespace=\"env30\",pod=\"alert-engine-alert-engine-54fd454f64-clbd7\",container=\"filebeat\",owner_kind=\"\",owner_name=\"\",node=\"m7-power-k8s03\",image=\"172.27.129.211:35000/filebeat-with-module:6.0.0\",registry=\"172.27.129.211:35000\",cause=\"qps_exceeded\"}"
    ));
    assert!(text.contains("kube_lifecycle_namespace_remaining_finalizers{namespace=\"legacy-app\",finalizer=\"kubernetes.io/pvc-protection\"} 1"));
    assert!(text.contains("kube_lifecycle_pod_pending_reason{namespace=\"default\",pod=\"report-builder-5f7b9c6d4-2mzvq\",owner_kind=\"\",owner_name=\"\",reason=\"insufficient_pods\"} 3"));
    // What a refusal names, as labels; empty where it names nothing.
    assert!(text.contains("kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds{namespace=\"billing\",owner_kind=\"ReplicaSet\",owner_name=\"invoice-6d5f7c9b8\",deployment=\"invoice\",cause=\"quota_exceeded\",quota=\"billing-compute\",resource=\"limits.memory\",webhook=\"\",pod_security_level=\"\"} 1717191901.0"), "{text}");
    assert!(text.contains("kube_lifecycle_workload_pod_create_refused_missing_pods{namespace=\"payments\",owner_kind=\"ReplicaSet\",owner_name=\"api-7b9c5d6f4\",cause=\"webhook_unreachable\"} 2"), "{text}");
    // A controller's verdict: its pods' cause, and the ReplicaSet whose pods
    // explain it (what their per-pod series carry).
    assert!(text.contains("kube_lifecycle_deployment_rollout_stuck_since_timestamp_seconds{namespace=\"web\",deployment=\"gui\",owner_kind=\"ReplicaSet\",owner_name=\"gui-5cd74fc875\",node=\"node1\",registry=\"registry.deepomatic.example\",cause=\"image_pull\",pod_cause=\"not_found\"} 1717197140.0"), "{text}");
    assert!(text.contains("kube_lifecycle_job_failed_since_timestamp_seconds{namespace=\"reports\",job_name=\"monthly-invoices\",owner_kind=\"Job\",owner_name=\"monthly-invoices\",node=\"m7-devops-128107\",registry=\"\",cause=\"oom_killed\",pod_cause=\"oom_killed\"} 1717195272.0"), "{text}");
    assert!(
        !text.contains("KillContainerError"),
        "raw messages never reach the exposition"
    );
}

#[test]
fn standard_input_and_json_lists_are_read() {
    let list = r#"{"apiVersion":"v1","kind":"List","items":[
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","creationTimestamp":"2024-05-01T00:00:00Z"},
         "status":{"phase":"Pending"}},
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"ns"}},
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}]}"#;
    let out = run(&["diagnose", "-", "--now", NOW, "-o", "json"], Some(list));
    assert!(out.status.success(), "{}", stderr(&out));
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["cause"], "not_scheduled");
    let err = stderr(&out);
    assert!(err.contains("read 1 object (1 Pod)"), "{err}");
    assert!(
        err.contains("skipped 2 objects of kinds not diagnosed (1 v1/ConfigMap, 1 v1/Service)"),
        "{err}"
    );
}

#[test]
fn a_healthy_cluster_says_so() {
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},
        "spec":{"nodeName":"n1"},"status":{"phase":"Running","containerStatuses":[
        {"name":"web","image":"nginx","ready":true,"restartCount":0,"state":{"running":{}}}]}}"#;
    let out = run(&["diagnose", "-", "--now", NOW], Some(pod));
    assert!(out.status.success());
    assert_eq!(stdout(&out), "No findings: nothing is stuck.\n");
}

fn fails_with(args: &[&str], stdin: Option<&str>, expected: &[&str]) {
    let out = run(args, stdin);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    for e in expected {
        assert!(err.contains(e), "expected {e:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_is_an_error_that_says_where() {
    fails_with(&["diagnose", "-"], Some("  \n"), &["empty"]);
    // Truncated JSON.
    fails_with(
        &["diagnose", "-"],
        Some(
            r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a""#,
        ),
        &["document 1", "not valid JSON", "EOF"],
    );
    // A field of the wrong type names the object and the path.
    fails_with(
        &["diagnose", "-"],
        Some(
            r#"{"kind":"List","apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}},
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},
             "status":{"containerStatuses":[{"name":"c","restartCount":"many"}]}}]}"#,
        ),
        &[
            "document 1, items[1]",
            "Pod ns/p",
            "status.containerStatuses[0].restartCount",
            "invalid type",
        ],
    );
    // YAML: the second document is not an object.
    fails_with(
        &["diagnose", "-"],
        Some(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n---\n- just\n- a list of strings\n",
        ),
        &["document 2, items[0]", "found a string"],
    );
    fails_with(
        &["diagnose", "-"],
        Some("kind: Pod\nmetadata: {name: [unclosed\n"),
        &["not valid YAML"],
    );
    fails_with(
        &["diagnose", "-"],
        Some(r#"{"metadata":{"name":"x"}}"#),
        &["document 1", "kind", "missing"],
    );
    fails_with(
        &["diagnose", "/nonexistent/dump.json"],
        None,
        &["reading /nonexistent/dump.json"],
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    let out = run(&["diagnose", EXAMPLE, "--now", "yesterday"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("RFC 3339"));
    let out = run(&["diagnose", EXAMPLE, "--unscheduled-after", "soon"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn multi_document_yaml_and_concatenated_json_are_read() {
    let yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gone\n  deletionTimestamp: \"2024-05-01T00:00:00Z\"\nspec:\n  finalizers: [kubernetes]\nstatus:\n  phase: Terminating\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: fine\nstatus:\n  phase: Active\n";
    let out = run(&["diagnose", "-", "--now", NOW, "-o", "json"], Some(yaml));
    assert!(out.status.success(), "{}", stderr(&out));
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["cause"], "namespace_finalizer");

    let json = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a","deletionTimestamp":"2024-05-01T00:00:00Z"},"status":{"phase":"Terminating"}}
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b","deletionTimestamp":"2024-05-01T00:00:00Z"},"status":{"phase":"Terminating"}}"#;
    let out = run(&["diagnose", "-", "--now", NOW, "-o", "json"], Some(json));
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(findings.len(), 2);
}

#[test]
fn a_yaml_dump_of_a_whole_cluster_loads_past_the_yaml_parsers_default_budget() {
    // 4,000 objects of ~60 nodes each: more YAML nodes than the parser's default
    // budget (250,000), which is sized for configuration files.
    let mut yaml = String::from("\n\n   \napiVersion: v1\nkind: List\nitems:\n");
    for i in 0..4_000 {
        yaml.push_str(&format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: bulk\n    uid: u{i}\n    labels: {{a: b, c: d, e: f, g: h}}\n  spec:\n    nodeName: n1\n    containers:\n    - name: app\n      image: registry.example/app:1\n      ports: [{{containerPort: 80}}, {{containerPort: 81}}]\n      env: [{{name: A, value: x}}, {{name: B, value: y}}, {{name: C, value: z}}]\n  status:\n    phase: Running\n    conditions:\n    - {{type: Ready, status: \"True\"}}\n    - {{type: PodScheduled, status: \"True\"}}\n    containerStatuses:\n    - {{name: app, ready: true, restartCount: 0, state: {{running: {{startedAt: \"2024-06-01T00:00:00Z\"}}}}}}\n"
        ));
    }
    let out = run(&["diagnose", "-", "--now", NOW], Some(&yaml));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("read 4000 objects"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn yaml_whose_first_line_is_indented_keeps_its_indentation() {
    // Blank lines before it are skipped; the indentation of the first line is the document's.
    let yaml = "\n  apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: gone\n    deletionTimestamp: \"2024-05-01T00:00:00Z\"\n  status:\n    phase: Terminating\n";
    let out = run(&["diagnose", "-", "--now", NOW, "-o", "json"], Some(yaml));
    assert!(out.status.success(), "{}", stderr(&out));
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(findings.len(), 1);
}

#[test]
fn a_list_cut_off_after_some_items_is_rejected_not_half_read() {
    let mut list = String::from(r#"{"apiVersion":"v1","kind":"List","items":["#);
    for i in 0..50 {
        list.push_str(&format!(
            r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"ns{i}"}}}},"#
        ));
    }
    list.push_str(r#"{"apiVersion":"v1","kind":"Nam"#);
    fails_with(
        &["diagnose", "-"],
        Some(&list),
        &[
            "standard input",
            "document 1",
            "not valid JSON",
            "EOF",
            "line 1 column",
        ],
    );
}

/// The embedded example carries the moment it was taken (an annotation of its
/// List), so without --now its ages read as a live incident's: minutes to a day,
/// not the years since the write-ups it reproduces.
#[test]
fn the_example_is_judged_as_of_its_own_now() {
    let own = run(&["diagnose", EXAMPLE, "-o", "json"], None);
    assert!(own.status.success(), "{}", stderr(&own));
    let fixed = run(&["diagnose", EXAMPLE, "--now", NOW, "-o", "json"], None);
    assert_eq!(stdout(&own), stdout(&fixed));

    let table = run(&["diagnose", EXAMPLE], None);
    let text = stdout(&table);
    let header = text.lines().next().unwrap();
    let (age_at, detail_at) = (header.find("AGE").unwrap(), header.find("DETAIL").unwrap());
    let mut ages = Vec::new();
    for line in text.lines().skip(1) {
        let cells: String = line.chars().skip(age_at).take(detail_at - age_at).collect();
        ages.push(cells.trim().to_string());
    }
    assert_eq!(ages.len(), common::exporter::example_findings(), "{text}");
    for age in &ages {
        // `45m`, `3h47m`, `1d2h`: nothing older than two days.
        let days: u32 = age.split_once('d').map_or(0, |(d, _)| d.parse().unwrap());
        assert!(days < 2, "age {age} in\n{text}");
    }
    // --now still wins over the example's own time.
    let later = run(
        &["diagnose", EXAMPLE, "--now", "2024-06-11T00:00:00Z"],
        None,
    );
    assert!(stdout(&later).contains("10d"), "{}", stdout(&later));
}

#[test]
fn a_list_s_now_that_is_not_a_time_names_the_annotation() {
    let list = r#"{"apiVersion":"v1","kind":"List","metadata":{"annotations":{"kube-lifecycle-exporter/now":"yesterday"}},"items":[]}"#;
    let out = run(&["diagnose", "-"], Some(list));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("metadata.annotations.kube-lifecycle-exporter/now")
            && err.contains("RFC 3339"),
        "{err}"
    );
}

/// Each runbook column cell is a command that prints the runbook the binary embeds.
#[test]
fn the_runbook_column_names_a_command_that_prints_the_runbook() {
    let out = run(&["diagnose", EXAMPLE], None);
    let text = stdout(&out);
    let mut commands: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| &l[l.find("kube-lifecycle-exporter runbook ").expect(l)..])
        .collect();
    commands.sort();
    commands.dedup();
    assert!(commands.len() > 10, "{commands:?}");
    for command in commands {
        let alert = command.rsplit(' ').next().unwrap();
        let printed = run(&["runbook", alert], None);
        assert!(printed.status.success(), "{command}: {}", stderr(&printed));
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("docs/runbooks/{alert}.md"));
        assert_eq!(
            stdout(&printed),
            std::fs::read_to_string(file).unwrap(),
            "{command}"
        );
    }
    // A published copy, when configured, replaces the command.
    let out = run(
        &[
            "diagnose",
            EXAMPLE,
            "--runbook-base-url",
            "https://runbooks.example.com/kl",
        ],
        None,
    );
    assert!(
        stdout(&out).contains("https://runbooks.example.com/kl/kubelifecyclenodelost")
            || stdout(&out).contains("https://runbooks.example.com/kl/kubelifecyclepodterminating")
    );

    let unknown = run(&["runbook", "NoSuchAlert"], None);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(stderr(&unknown).contains("no runbook for an alert named \"NoSuchAlert\""));
    let list = run(&["runbook"], None);
    assert!(
        stdout(&list).contains("KubeLifecycleNodeLost\n"),
        "{}",
        stdout(&list)
    );
}

/// `diagnose` without FILE reads a pipe, as `diagnose -` does; usage and the
/// README say the same.
#[test]
fn file_is_optional_and_usage_help_and_readme_agree() {
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},
        "spec":{"nodeName":"n1"},"status":{"phase":"Running","containerStatuses":[
        {"name":"web","image":"nginx","ready":true,"restartCount":0,"state":{"running":{}}}]}}"#;
    let out = run(&["diagnose"], Some(pod));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "No findings: nothing is stuck.\n");
    assert!(
        stderr(&out).starts_with("standard input: read 1 object"),
        "{}",
        stderr(&out)
    );

    let help = stdout(&run(&["diagnose", "--help"], None));
    assert!(
        help.contains("Usage: kube-lifecycle-exporter diagnose [OPTIONS] [FILE]"),
        "{help}"
    );
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains("`diagnose [FILE|-] "),
        "the README's usage line"
    );
}

/// Counts agree with their nouns, and a DaemonSet's finding says what is wrong
/// in an operator's words (not "4 of 4 eligible nodes have no pod (desired 0)").
#[test]
fn wording_is_plural_where_plural_and_says_what_is_wrong() {
    let out = run(&["diagnose", EXAMPLE, "-o", "json"], None);
    let findings: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let table = stdout(&run(&["diagnose", EXAMPLE], None));
    let mut texts: Vec<String> = findings.iter().map(|f| f["message"].to_string()).collect();
    texts.push(table);
    texts.push(stderr(&out));
    for text in &texts {
        // Our own words only: raw messages keep Kubernetes' "node(s)"; "0/1 pods" is a fraction.
        for slip in [
            "pod(s) must",
            " 1 objects",
            " 1 pods",
            " 1 restarts",
            " 1 findings",
            " 1 nodes",
            "desired 0",
        ] {
            assert!(!text.contains(slip), "{slip:?} in {text}");
        }
    }
    let daemonset = findings
        .iter()
        .find(|f| f["name"] == "my-prom-prometheus-node-exporter")
        .unwrap();
    assert!(
        daemonset["message"].as_str().unwrap().starts_with(
            "no pod on any of the 6 ready nodes it should run on; its controller schedules none of them; hostPort 9100/TCP on node"
        ),
        "{daemonset}"
    );
    let blocked = findings
        .iter()
        .find(|f| f["name"] == "crontab-runner")
        .unwrap();
    assert!(
        blocked["message"]
            .as_str()
            .unwrap()
            .starts_with("1 pod must go first"),
        "{blocked}"
    );
}

/// A JSON List's `now` annotation is honoured as the YAML example's is: a pod
/// Pending for 3 minutes as of then is not yet `not_scheduled` (5m), and is
/// when judged as of today.
#[test]
fn a_json_list_s_own_now_is_honoured() {
    let list = |annotations: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"List","metadata":{{{annotations}}},"items":[
            {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"ns","creationTimestamp":"2024-05-01T00:00:00Z"}},
             "status":{{"phase":"Pending"}}}}]}}"#
        )
    };
    let own = run(
        &["diagnose", "-", "-o", "json"],
        Some(&list(
            r#""annotations":{"kube-lifecycle-exporter/now":"2024-05-01T00:03:00Z"}"#,
        )),
    );
    assert!(own.status.success(), "{}", stderr(&own));
    assert_eq!(stdout(&own), "[]\n");
    let today = run(&["diagnose", "-", "-o", "json"], Some(&list("")));
    assert!(
        stdout(&today).contains("not_scheduled"),
        "{}",
        stdout(&today)
    );
}

/// On a terminal, `diagnose` without FILE says what it wants instead of waiting
/// for a dump typed at the keyboard. `script` (util-linux) gives it a terminal.
#[test]
fn without_file_on_a_terminal_it_says_what_to_give() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: script (util-linux) is not installed");
        return;
    }
    let out = Command::new("script")
        .args(["-qec", &format!("{BIN} diagnose"), "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(
        terminal.contains("no dump to read: name a file"),
        "{terminal:?}"
    );
    assert!(!out.status.success());
}
