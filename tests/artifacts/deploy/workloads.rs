//! The workloads: the restricted Pod Security Standard, flags the exporter takes,
//! probe paths it answers, the image tag.

use super::*;

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
