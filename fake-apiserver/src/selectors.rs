//! Label and field selectors, parsed once per request and matched against
//! every candidate object.
//!
//! The grammar follows the API server's: comma means AND, labels support
//! equality, inequality, existence and set membership, fields support
//! (in)equality on any dotted path. Anything malformed is rejected so tests can
//! check that a client sends what it means.

use std::collections::BTreeMap;

use crate::object::StoredObject;

/// A parsed `labelSelector`.
#[derive(Debug, Default, Clone)]
pub(crate) struct LabelSelector {
    requirements: Vec<LabelRequirement>,
}

#[derive(Debug, Clone)]
struct LabelRequirement {
    key: String,
    op: LabelOp,
}

#[derive(Debug, Clone)]
enum LabelOp {
    Equals(String),
    NotEquals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    NotExists,
}

impl LabelSelector {
    /// Parses a selector such as `app=web,tier!=db,env in (a,b),!legacy`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut requirements = Vec::new();
        if text.trim().is_empty() {
            return Ok(LabelSelector { requirements });
        }
        for part in split_outside_parens(text)? {
            requirements.push(parse_label_requirement(part.trim())?);
        }
        Ok(LabelSelector { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| {
            let value = labels.get(&r.key);
            match &r.op {
                LabelOp::Equals(v) => value == Some(v),
                LabelOp::NotEquals(v) => value != Some(v),
                LabelOp::In(set) => value.is_some_and(|v| set.contains(v)),
                LabelOp::NotIn(set) => value.is_none_or(|v| !set.contains(v)),
                LabelOp::Exists => value.is_some(),
                LabelOp::NotExists => value.is_none(),
            }
        })
    }
}

/// Splits on commas that are not inside `( )`, rejecting unbalanced parens.
fn split_outside_parens(text: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("unbalanced ')' in {text:?}"))?
            }
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("unclosed '(' in {text:?}"));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

fn parse_label_requirement(part: &str) -> Result<LabelRequirement, String> {
    if part.is_empty() {
        return Err("found empty requirement in label selector".into());
    }
    if let Some(key) = part.strip_prefix('!') {
        let key = key.trim();
        validate_label_key(key)?;
        return Ok(LabelRequirement {
            key: key.into(),
            op: LabelOp::NotExists,
        });
    }
    if let Some(open) = part.find('(') {
        let head: Vec<&str> = part[..open].split_whitespace().collect();
        let Some(inner) = part[open + 1..].trim_end().strip_suffix(')') else {
            return Err(format!("expected ')' at the end of {part:?}"));
        };
        let [key, operator] = head.as_slice() else {
            return Err(format!(
                "expected `key in (...)` or `key notin (...)`, found {part:?}"
            ));
        };
        validate_label_key(key)?;
        let values = inner
            .split(',')
            .map(|v| {
                let v = v.trim();
                validate_label_value(v).map(|()| v.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        if values.iter().all(String::is_empty) {
            return Err(format!(
                "for 'in', 'notin' operators, values set can't be empty: {part:?}"
            ));
        }
        let op = match *operator {
            "in" => LabelOp::In(values),
            "notin" => LabelOp::NotIn(values),
            other => return Err(format!("unknown label selector operator {other:?}")),
        };
        return Ok(LabelRequirement {
            key: key.to_string(),
            op,
        });
    }
    let (key, op) = if let Some((k, v)) = part.split_once("!=") {
        (k, LabelOp::NotEquals(v.trim().into()))
    } else if let Some((k, v)) = part.split_once("==") {
        (k, LabelOp::Equals(v.trim().into()))
    } else if let Some((k, v)) = part.split_once('=') {
        (k, LabelOp::Equals(v.trim().into()))
    } else {
        (part, LabelOp::Exists)
    };
    let key = key.trim();
    validate_label_key(key)?;
    if let LabelOp::Equals(v) | LabelOp::NotEquals(v) = &op {
        validate_label_value(v)?;
    }
    Ok(LabelRequirement {
        key: key.into(),
        op,
    })
}

/// `[prefix/]name`, with the characters the API server allows.
fn validate_label_key(key: &str) -> Result<(), String> {
    let name = match key.split_once('/') {
        Some((prefix, name)) => {
            if prefix.is_empty()
                || !prefix
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            {
                return Err(format!("invalid label key prefix in {key:?}"));
            }
            name
        }
        None => key,
    };
    let valid = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if valid {
        Ok(())
    } else {
        Err(format!("invalid label key {key:?}"))
    }
}

fn validate_label_value(value: &str) -> Result<(), String> {
    if value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        Ok(())
    } else {
        Err(format!("invalid label value {value:?}"))
    }
}

/// A parsed `fieldSelector`.
#[derive(Debug, Default, Clone)]
pub(crate) struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

#[derive(Debug, Clone)]
struct FieldRequirement {
    path: String,
    value: String,
    negated: bool,
}

impl FieldSelector {
    /// Parses a selector such as `spec.nodeName=n1,metadata.namespace!=kube-system`.
    /// Values may escape `\`, `,` and `=` with a backslash.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut requirements = Vec::new();
        if text.trim().is_empty() {
            return Ok(FieldSelector { requirements });
        }
        for part in split_unescaped_commas(text) {
            requirements.push(parse_field_requirement(&part)?);
        }
        Ok(FieldSelector { requirements })
    }

    /// A selector on exactly `metadata.name`, as a watch of one object uses.
    pub fn name(name: &str) -> Self {
        FieldSelector {
            requirements: vec![FieldRequirement {
                path: "metadata.name".into(),
                value: name.into(),
                negated: false,
            }],
        }
    }

    pub fn and(mut self, other: FieldSelector) -> Self {
        self.requirements.extend(other.requirements);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches(&self, object: &StoredObject) -> bool {
        let mut parsed = None;
        self.requirements
            .iter()
            .all(|r| (object.field(&r.path, &mut parsed) == r.value) != r.negated)
    }
}

/// Splits on commas not preceded by a backslash, keeping escapes for the
/// requirement parser.
fn split_unescaped_commas(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let last = parts.last_mut().expect("parts starts non-empty");
                last.push('\\');
                if let Some(next) = chars.next() {
                    last.push(next);
                }
            }
            ',' => parts.push(String::new()),
            _ => parts.last_mut().expect("parts starts non-empty").push(c),
        }
    }
    parts
}

fn parse_field_requirement(part: &str) -> Result<FieldRequirement, String> {
    // Find the first unescaped operator.
    let bytes = part.as_bytes();
    let mut i = 0;
    let (key_end, negated, value_start) = loop {
        match bytes.get(i) {
            None => {
                return Err(format!(
                    "invalid field selector requirement {part:?}: no operator"
                ));
            }
            Some(b'\\') => i += 2,
            Some(b'!') if bytes.get(i + 1) == Some(&b'=') => break (i, true, i + 2),
            Some(b'=') if bytes.get(i + 1) == Some(&b'=') => break (i, false, i + 2),
            Some(b'=') => break (i, false, i + 1),
            Some(_) => i += 1,
        }
    };
    let path = part[..key_end].trim();
    let valid_path = !path.is_empty()
        && path.split('.').all(|segment| {
            !segment.is_empty()
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
    if !valid_path {
        return Err(format!("invalid field selector key {path:?}"));
    }
    let mut value = String::new();
    let mut chars = part[value_start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ ('\\' | ',' | '=')) => value.push(escaped),
                other => {
                    return Err(format!(
                        "invalid escape sequence \\{} in field selector",
                        other.unwrap_or(' ')
                    ));
                }
            },
            '=' | ',' => return Err(format!("unescaped {c:?} in field selector value {part:?}")),
            _ => value.push(c),
        }
    }
    Ok(FieldRequirement {
        path: path.into(),
        value,
        negated,
    })
}

/// Everything that decides whether an object belongs to a request's view:
/// the namespace of the path and both selectors.
#[derive(Debug, Default, Clone)]
pub(crate) struct Filter {
    pub namespace: Option<String>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
}

impl Filter {
    /// Whether the selectors narrow the view (the namespace does not count:
    /// it only picks the scope, like the key range of a real list).
    pub fn has_selectors(&self) -> bool {
        !self.labels.is_empty() || !self.fields.is_empty()
    }

    pub fn matches(&self, object: &StoredObject) -> bool {
        self.namespace
            .as_deref()
            .is_none_or(|ns| ns == object.namespace)
            && self.labels.matches(&object.labels)
            && self.fields.matches(object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selector_operators() {
        let l = labels(&[("app", "web"), ("tier", "front")]);
        let yes = [
            "",
            "app=web",
            "app==web",
            "app!=db",
            "missing!=x",
            "app",
            "!missing",
            "tier in (front,back)",
            "tier notin (back)",
            "missing notin (x)",
            "app=web, tier in ( front , back ),!missing",
        ];
        for s in yes {
            assert!(LabelSelector::parse(s).unwrap().matches(&l), "{s}");
        }
        let no = [
            "app=db",
            "app!=web",
            "missing",
            "!app",
            "tier in (back)",
            "missing in (x)",
            "tier notin (front)",
        ];
        for s in no {
            assert!(!LabelSelector::parse(s).unwrap().matches(&l), "{s}");
        }
    }

    #[test]
    fn malformed_label_selectors_are_rejected() {
        for s in [
            "app=web,",
            "tier in (a",
            "tier in a)",
            "tier within (a)",
            "=x",
            "a b",
            "app=we b",
            "tier in ()",
            "k=v=w",
        ] {
            assert!(LabelSelector::parse(s).is_err(), "{s}");
        }
    }

    #[test]
    fn field_selectors() {
        let body = json!({"metadata": {"name": "a", "namespace": "ns"}, "type": "Warning", "involvedObject": {"kind": "Pod"}});
        let obj = StoredObject::from_body("ns".into(), "a".into(), 1, body.as_object().unwrap());
        for s in [
            "metadata.name=a",
            "metadata.namespace==ns",
            "type=Warning,involvedObject.kind=Pod",
            "spec.nodeName=",
            "metadata.name!=b",
        ] {
            assert!(FieldSelector::parse(s).unwrap().matches(&obj), "{s}");
        }
        for s in ["metadata.name=b", "type!=Warning", "spec.nodeName=n1"] {
            assert!(!FieldSelector::parse(s).unwrap().matches(&obj), "{s}");
        }
        for s in ["metadata.name", "=a", "a..b=c", "a=b=c", "a=\\q"] {
            assert!(FieldSelector::parse(s).is_err(), "{s}");
        }
        let escaped = FieldSelector::parse("metadata.name=a\\,b,type=x").unwrap();
        assert_eq!(escaped.requirements.len(), 2);
        assert_eq!(escaped.requirements[0].value, "a,b");
    }
}
