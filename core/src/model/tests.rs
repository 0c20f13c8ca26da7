//! The slim types read by the list decoder ([`codec`](crate::codec)) as
//! serde_json reads them: the same value, or both an error; what a type skips
//! or takes as text is checked for its extent only.

use std::collections::BTreeMap;

use crate::codec::from_str;
use crate::codec::tests::agree;
use crate::model::{Pod, PodPhase};

#[test]
fn collections_options_and_unit_variants() {
    let m: BTreeMap<String, Vec<Option<bool>>> =
        agree(r#" { "a" : [true, null, false] , "b\u0021":[] } "#).unwrap();
    assert_eq!(m["a"], [Some(true), None, Some(false)]);
    assert!(m["b!"].is_empty());
    assert_eq!(agree::<PodPhase>(r#""Running""#), Some(PodPhase::Running));
    // `#[serde(other)]`: an unknown phase is Unknown, not an error.
    assert_eq!(agree::<PodPhase>(r#""Rebooting""#), Some(PodPhase::Unknown));
    // An enum may also be written `{"Variant": value}`; a unit variant's value
    // is null. serde_json reads a struct from a list of its fields, so a
    // status written as a list reads its phase from such an object (found by
    // tests/fuzz_model.rs).
    assert_eq!(
        agree::<PodPhase>(r#" { "Running" : null } "#),
        Some(PodPhase::Running)
    );
    assert_eq!(
        agree::<PodPhase>(r#"{"metadata":null}"#),
        Some(PodPhase::Unknown)
    );
    agree::<Pod>(r#"{"apiVersion":"v1","kind":"Pod","status":[{"metadata":null}]}"#).unwrap();
    for bad in [
        r#"{"Running":1}"#,
        r#"{"Running":null,"Failed":null}"#,
        r#"{"Running"}"#,
        r#"{1:null}"#,
        r#"{}"#,
        r#"{"Running":null"#,
    ] {
        agree::<PodPhase>(bad);
        assert!(from_str::<PodPhase>(bad).is_err(), "{bad}");
    }
    for bad in [
        "[1,2",
        "[1 2]",
        "[1,]",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{1:2}"#,
        "{} x",
        "",
        "nul",
    ] {
        agree::<serde_json::Value>(bad);
        assert!(from_str::<BTreeMap<String, i32>>(bad).is_err(), "{bad}");
    }
}

#[test]
fn values_not_kept_are_skipped_whatever_they_hold() {
    let pod: Pod = agree(
        r#"{"metadata":{"name":"web-1","namespace":"shop",
              "managedFields":[{"manager":"kubelet","fieldsV1":{"f:status":{"k:{\"type\":\"Ready\"}":{".":{}}}}}],
              "labels":{"app":"web"},"annotations":{"note":"}]\"[{ \\"}},
            "spec":{"nodeName":"n1","volumes":[{"name":"v","emptyDir":{}}],"priority":-3,
                    "overhead":null,"enableServiceLinks":true,"ratio":1.5e-3,
                    "containers":[{"name":"app","ports":[{"containerPort":80,"hostPort":8080}],
                                   "env":[{"name":"X","value":"[[[\""}]}]},
            "status":{"phase":"Running","hostIP":"10.0.0.1"}}"#,
    )
    .unwrap();
    assert_eq!(pod.metadata.name, "web-1");
    assert_eq!(pod.spec.node_name, "n1");
    assert_eq!(pod.host_ports()[0].port, 8080);
    assert_eq!(pod.status.phase, PodPhase::Running);
}

#[test]
fn a_skipped_value_is_checked_for_its_extent() {
    for bad in [
        r#"{"metadata":{"managedFields":[{"a":1}"#,
        r#"{"metadata":{"labels":"unterminated}}"#,
        r#"{"spec":{"priority":tru}}"#,
        r#"{"spec":{"priority":}}"#,
    ] {
        assert!(from_str::<Pod>(bad).is_err(), "{bad}");
    }
}

#[test]
fn errors_say_where() {
    let err = from_str::<Pod>(r#"{"metadata":{"name":42}}"#).unwrap_err();
    assert!(err.to_string().contains("expected a string"), "{err}");
    assert!(err.to_string().contains("at byte"), "{err}");
    let err = from_str::<Pod>(r#"{"status":{"phase":"Running"} "#).unwrap_err();
    assert!(err.to_string().contains("EOF"), "{err}");
}

#[test]
fn kept_values_nest_no_deeper_than_serde_json_allows() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(from_str::<serde_json::Value>(&deep).is_err());
    // A skipped value may nest as deep as it likes: nothing recurses.
    // (`volumes`: an unbound pod's `affinity` is kept since issue 46.)
    let pod = format!(r#"{{"spec":{{"volumes":{deep}}},"metadata":{{"name":"p"}}}}"#);
    assert_eq!(from_str::<Pod>(&pod).unwrap().metadata.name, "p");
}

#[test]
fn containers_are_decoded_only_when_they_can_claim_a_host_port() {
    let ports = |spec: &str| -> Option<Vec<(i32, String)>> {
        let pod: Pod = agree(&format!(r#"{{"spec":{spec}}}"#))?;
        Some(
            pod.host_ports()
                .iter()
                .map(|p| (p.port, p.protocol.clone()))
                .collect(),
        )
    };
    let claimed = r#"{"containers":[{"name":"a","env":[{"name":"X","value":"]"}],
        "ports":[{"containerPort":53,"hostPort":53,"protocol":"UDP"}]}],
        "initContainers":[{"name":"i","ports":[{"containerPort":80,"hostPort":8080}]}]}"#;
    assert_eq!(
        ports(claimed).unwrap(),
        [(53, "UDP".to_string()), (8080, "TCP".to_string())]
    );
    let host_network =
        r#"{"hostNetwork":true,"containers":[{"name":"a","ports":[{"containerPort":9100}]}]}"#;
    assert_eq!(ports(host_network).unwrap(), [(9100, "TCP".to_string())]);
    let none =
        r#"{"containers":[{"name":"a","ports":[{"containerPort":80}]}],"initContainers":null}"#;
    assert_eq!(ports(none).unwrap(), []);
    assert_eq!(ports(r#"{"containers":"x"}"#), None);
    assert!(from_str::<Pod>(r#"{"spec":{"containers":[{"ports":[{"hostPort":"x"}]}]}}"#).is_err());
}

#[test]
fn container_statuses_are_decoded_only_when_the_pod_may_keep_them() {
    // How many statuses a pod keeps, decoded by skim and serde_json alike.
    let kept = |phase: &str, statuses: &str| -> Option<usize> {
        let pod: Pod = agree(&format!(
            r#"{{"spec":{{"nodeName":"n1"}},"status":{{"phase":"{phase}","containerStatuses":{statuses}}}}}"#
        ))?;
        Some(pod.container_statuses().count())
    };
    let running =
        r#"[{"name":"a","ready":true,"state":{"running":{"startedAt":"2026-11-24T10:00:00Z"}}}]"#;
    let waiting = r#"[{"name":"a","state":{"waiting":{"reason":"CrashLoopBackOff"}}},
        {"name":"b","state":{"running":{}}}]"#;
    // A settled pod drops statuses that name no waiting state, undecoded...
    assert_eq!(kept("Running", running), Some(0));
    // ...keeps them when a container waits...
    assert_eq!(kept("Running", waiting), Some(2));
    // ...and decodes them to find out when "waiting" is only a word in them.
    let word = r#"[{"name":"a","state":{"waiting":null,"running":{}}},
        {"name":"b","lastState":{"terminated":{"message":"waiting"}}}]"#;
    assert_eq!(kept("Running", word), Some(0));
    // A pod that is not settled keeps them all.
    assert_eq!(kept("Pending", running), Some(1));
    assert_eq!(kept("Running", "null"), Some(0));
    // Statuses that are not a list are an error, kept or not.
    assert_eq!(kept("Running", r#"{"name":"a"}"#), None);
    assert_eq!(kept("Pending", r#""x""#), None);
    // Malformed inside and decoded: an error.
    assert_eq!(
        kept("Running", r#"[{"state":{"waiting":{"reason":5}}}]"#),
        None
    );
}
