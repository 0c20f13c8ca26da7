//! Writes a generated cluster as a `kubectl get -o json`-style List, to run
//! `diagnose` or `serve --from-file` on the benchmark's own cluster:
//! `cargo run --release -p lifecycle-bench --example write_cluster -- 15000 storm > storm.json`

use std::io::{BufWriter, Write};

use lifecycle_bench::cluster::{self, Profile};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let pods: usize = args.next().unwrap_or_else(|| "10000".into()).parse()?;
    let profile: Profile = args
        .next()
        .unwrap_or_else(|| "healthy".into())
        .parse()
        .map_err(anyhow::Error::msg)?;
    let generated = cluster::generate_profile(pods, profile);
    let mut out = BufWriter::new(std::io::stdout().lock());
    out.write_all(br#"{"apiVersion":"v1","kind":"List","items":["#)?;
    for (n, object) in generated.others.iter().chain(&generated.pods).enumerate() {
        if n > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut out, object)?;
    }
    out.write_all(b"]}\n")?;
    Ok(())
}
