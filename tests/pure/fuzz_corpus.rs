//! Replays the fuzz corpus (tests/fuzz-corpus/: the seeds and what the
//! release-mode runs of `lifecycle-fuzz` kept, docs/fuzzing.md) through every
//! target: the dump loader with the diagnosis and the outputs, the watch-page
//! decoder of every kind, and every message classifier. None may panic.

use crate::fuzz;

#[test]
fn every_corpus_input_runs_through_every_target_without_a_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz-corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 200, "{} files in {dir}", files.len());
    let mut panics = Vec::new();
    for file in &files {
        let input = std::fs::read(file).unwrap();
        if std::panic::catch_unwind(|| fuzz::run_all(&input)).is_err() {
            panics.push(file.display().to_string());
        }
    }
    assert!(panics.is_empty(), "panicked on:\n{}", panics.join("\n"));
}
