//! The chart's own files: its appVersion and the keys values.yaml and
//! values.schema.json name.

use super::*;

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
