//! values.schema.json refuses typos and wrong types.

use super::*;

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
