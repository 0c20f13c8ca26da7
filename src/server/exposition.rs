//! Exposition formats: OpenMetrics text (what prometheus-client writes) and the
//! classic Prometheus text format 0.0.4, chosen by the request's `Accept`.

pub(crate) const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
pub(crate) const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    OpenMetrics,
    Classic,
}

impl Format {
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => OPENMETRICS,
            Format::Classic => CLASSIC,
        }
    }

    /// OpenMetrics when the client ranks it at least as high as plain text
    /// (Prometheus does); the classic format otherwise (curl, browsers).
    pub(crate) fn negotiate(accept: Option<&str>) -> Format {
        let Some(accept) = accept else {
            return Format::Classic;
        };
        let (mut openmetrics, mut text) = (0.0f32, 0.0f32);
        for range in accept.split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("").to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            match media.as_str() {
                "application/openmetrics-text" => openmetrics = openmetrics.max(q),
                "text/plain" | "text/*" | "*/*" => text = text.max(q),
                _ => {}
            }
        }
        if openmetrics > 0.0 && openmetrics >= text {
            Format::OpenMetrics
        } else {
            Format::Classic
        }
    }
}

/// Rewrites OpenMetrics text as the classic text format: counters are typed
/// under their `_total` name, info metrics become gauges, `# UNIT` and `# EOF`
/// go, and `_created` samples are dropped.
pub(crate) fn to_classic(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    // Family name → its rewritten name, for the HELP line that precedes TYPE.
    let lines: Vec<&str> = openmetrics.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line == "# EOF" || line.starts_with("# UNIT ") {
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            // The TYPE line follows HELP in prometheus-client's output.
            let kind = lines
                .get(i + 1)
                .and_then(|l| l.strip_prefix("# TYPE "))
                .and_then(|t| t.split_once(' '))
                .filter(|(n, _)| *n == name)
                .map(|(_, k)| k)
                .unwrap_or("unknown");
            let (classic_name, classic_kind) = match kind {
                "counter" => (format!("{name}_total"), "counter"),
                "info" => (format!("{name}_info"), "gauge"),
                "unknown" => (name.to_string(), "untyped"),
                other => (name.to_string(), other),
            };
            out.push_str(&format!(
                "# HELP {classic_name} {help}\n# TYPE {classic_name} {classic_kind}\n"
            ));
            i += if lines.get(i + 1).is_some_and(|l| l.starts_with("# TYPE ")) {
                2
            } else {
                1
            };
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            // A TYPE without HELP.
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, "unknown"));
            let (n, k) = match kind {
                "counter" => (format!("{name}_total"), "counter"),
                "info" => (format!("{name}_info"), "gauge"),
                "unknown" => (name.to_string(), "untyped"),
                other => (name.to_string(), other),
            };
            out.push_str(&format!("# TYPE {n} {k}\n"));
            i += 1;
            continue;
        }
        let metric_name = line.split(['{', ' ']).next().unwrap_or("");
        if !metric_name.ends_with("_created") {
            out.push_str(line);
            out.push('\n');
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_gets_openmetrics_and_curl_gets_text() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::negotiate(Some(prometheus)), Format::OpenMetrics);
        let prometheus3 = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1";
        assert_eq!(Format::negotiate(Some(prometheus3)), Format::OpenMetrics);
        assert_eq!(Format::negotiate(Some("*/*")), Format::Classic);
        assert_eq!(Format::negotiate(None), Format::Classic);
        assert_eq!(
            Format::negotiate(Some("text/plain;version=0.0.4")),
            Format::Classic
        );
        assert_eq!(
            Format::negotiate(Some("application/openmetrics-text;q=0, text/plain")),
            Format::Classic
        );
    }

    #[test]
    fn counters_and_info_are_renamed_and_openmetrics_markers_go() {
        let om = "# HELP a_events Events.\n# TYPE a_events counter\na_events_total{r=\"x\"} 3\na_events_created{r=\"x\"} 1.7e9\n# HELP b Gauge.\n# TYPE b gauge\n# UNIT b seconds\nb 1.5\n# HELP c Info.\n# TYPE c info\nc_info{v=\"1\"} 1\n# EOF\n";
        assert_eq!(
            to_classic(om),
            "# HELP a_events_total Events.\n# TYPE a_events_total counter\na_events_total{r=\"x\"} 3\n# HELP b Gauge.\n# TYPE b gauge\nb 1.5\n# HELP c_info Info.\n# TYPE c_info gauge\nc_info{v=\"1\"} 1\n"
        );
    }
}
