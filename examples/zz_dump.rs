use lifecycle_bench::cluster;
use std::io::Write;
fn main() {
    let pods: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let g = cluster::generate(pods);
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(std::env::args().nth(2).unwrap()).unwrap());
    write!(out, r#"{{"apiVersion":"v1","kind":"List","items":["#).unwrap();
    let mut first = true;
    for o in g.others.iter().chain(g.pods.iter()) {
        if !first {
            out.write_all(b",").unwrap();
        }
        first = false;
        serde_json::to_writer(&mut out, o).unwrap();
    }
    out.write_all(b"]}").unwrap();
}
