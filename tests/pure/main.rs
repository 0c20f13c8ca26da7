//! The tests that start no process, in one binary so that the minute-by-minute
//! check (`scripts/test --fast`) compiles and links once: the diagnosis against
//! real messages, pod shapes and incidents, the model, the dashboards' JSON and
//! the fuzz corpus. One module per subject.

#[path = "../common/mod.rs"]
mod common;

// The fuzz targets of the fuzzer (bench/), replayed here over its corpus.
#[path = "../../bench/src/fuzz.rs"]
#[allow(dead_code, unreachable_pub)]
mod fuzz;

// One module per file and folder here (`cargo xtask generate`).
// BEGIN GENERATED: modules
mod claims;
mod containers;
mod cronjobs;
mod dashboards;
mod drains;
mod fuzz_corpus;
mod held_back;
mod namespaces;
mod new_states;
mod pending;
mod pod_shapes;
mod pod_states;
mod real_messages;
mod real_messages_held_back;
mod real_probes;
mod real_probes_held_back;
mod real_refusals;
mod real_refusals_held_back;
mod robustness;
mod roots;
mod terminating;
mod verdicts;
mod workloads;
// END GENERATED: modules
