//! One stored version of an object.
//!
//! Objects are kept serialised: a list of 150,000 pods is then a concatenation
//! of strings rather than a re-serialisation of JSON trees, and memory stays
//! close to the wire size. The few fields selectors need often (namespace,
//! name, labels) are extracted once; any other field is looked up by parsing
//! on demand.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::resources::ResourceType;

/// An immutable object version, shared by the store, history and watchers.
#[derive(Debug)]
pub(crate) struct StoredObject {
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
    pub resource_version: u64,
    pub labels: BTreeMap<String, String>,
    /// A comma, then the object as list items carry it (no `apiVersion` or
    /// `kind`): a list's body is sent as these texts, the first without its
    /// comma, rather than copied into one buffer.
    item: String,
}

impl StoredObject {
    /// Builds a stored object from `body`, an object whose `apiVersion` and
    /// `kind` were already removed and whose metadata is complete.
    pub fn from_body(
        namespace: String,
        name: String,
        resource_version: u64,
        body: &Map<String, Value>,
    ) -> Self {
        let labels = body
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Value::as_object)
            .map(|labels| {
                labels
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let mut item = b",".to_vec();
        if serde_json::to_writer(&mut item, body).is_err() {
            item.truncate(1);
            item.extend_from_slice(b"{}");
        }
        let item = String::from_utf8(item).expect("serde_json writes UTF-8");
        StoredObject {
            namespace,
            name,
            resource_version,
            labels,
            item,
        }
    }

    /// The object as list items carry it: no `apiVersion` or `kind`.
    pub fn json(&self) -> &str {
        &self.item[1..]
    }

    /// The object as an item of a list, after the first: a comma, then its JSON.
    pub fn json_after_comma(&self) -> &str {
        &self.item
    }

    /// The object body as a JSON map, without `apiVersion` and `kind`.
    pub fn body(&self) -> Map<String, Value> {
        serde_json::from_str(self.json()).unwrap_or_default()
    }

    /// The object as clients get it from a GET or a watch event: with
    /// `apiVersion` and `kind`.
    pub fn to_value(&self, resource: &ResourceType) -> Value {
        let mut body = self.body();
        body.insert(
            "apiVersion".into(),
            Value::String(resource.api_version.into()),
        );
        body.insert("kind".into(), Value::String(resource.kind.into()));
        Value::Object(body)
    }

    /// Appends the object with `apiVersion` and `kind` to `out`, by splicing
    /// them in front of the stored fields instead of re-serialising.
    pub fn write_typed(&self, resource: &ResourceType, out: &mut String) {
        out.push_str("{\"apiVersion\":\"");
        out.push_str(resource.api_version);
        out.push_str("\",\"kind\":\"");
        out.push_str(resource.kind);
        out.push('"');
        let rest = &self.json()[1..];
        if !rest.starts_with('}') {
            out.push(',');
        }
        out.push_str(rest);
    }

    /// The value of a field selector path such as `spec.nodeName`, as the
    /// API server compares it: a missing field is the empty string.
    pub fn field(&self, path: &str, parsed: &mut Option<Value>) -> String {
        match path {
            "metadata.name" => return self.name.clone(),
            "metadata.namespace" => return self.namespace.clone(),
            _ => {}
        }
        let root =
            parsed.get_or_insert_with(|| serde_json::from_str(self.json()).unwrap_or(Value::Null));
        let mut node = &*root;
        for part in path.split('.') {
            match node.get(part) {
                Some(next) => node = next,
                None => return String::new(),
            }
        }
        match node {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            _ => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{by_type, resource};
    use serde_json::json;

    fn pod() -> StoredObject {
        let body = json!({"metadata": {"name": "a", "namespace": "ns", "labels": {"app": "web", "n": 1}},
                          "spec": {"nodeName": "n1", "hostNetwork": true}});
        StoredObject::from_body("ns".into(), "a".into(), 7, body.as_object().unwrap())
    }

    #[test]
    fn typed_form_splices_type_meta() {
        let p = pod();
        let mut out = String::new();
        p.write_typed(resource(by_type("v1", "Pod").unwrap()), &mut out);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["kind"], "Pod");
        assert_eq!(v["apiVersion"], "v1");
        assert_eq!(v["spec"]["nodeName"], "n1");
        assert_eq!(p.labels.len(), 1, "non-string label values are ignored");
    }

    #[test]
    fn fields_are_looked_up_by_path() {
        let p = pod();
        let mut parsed = None;
        assert_eq!(p.field("metadata.name", &mut parsed), "a");
        assert_eq!(p.field("spec.nodeName", &mut parsed), "n1");
        assert_eq!(p.field("spec.hostNetwork", &mut parsed), "true");
        assert_eq!(p.field("status.phase", &mut parsed), "");
    }
}
