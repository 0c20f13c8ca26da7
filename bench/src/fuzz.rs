//! The fuzz targets and a mutation engine, shared by the release-mode driver
//! (`lifecycle-fuzz`, docs/fuzzing.md) and the test that replays the kept
//! corpus (`tests/pure/fuzz_corpus.rs`, which includes this file by path). Only
//! the exporter's public API and std: no random-number crate, so a run is
//! the same for the same seed everywhere.

use kube_lifecycle_exporter::diagnosis::{self, classify};
use kube_lifecycle_exporter::model::{
    CoreEvent, DaemonSet, Deployment, Job, Namespace, Node, Pod, ReplicaSet, ReplicationController,
    StatefulSet, Time,
};
use kube_lifecycle_exporter::output::{self, RunbookLinks, terminal};
use kube_lifecycle_exporter::source::dump;
use kube_lifecycle_exporter::source::watch::pages::decode_page;

/// Which code an input is for, from its corpus file name's prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `diagnose`'s loader, then the diagnosis and every output.
    Dump,
    /// The watch-page decoder, for every kind.
    Page,
    /// Every message classifier.
    Message,
}

impl Target {
    pub fn of_file_name(name: &str) -> Target {
        match name.split('-').next() {
            Some("page") => Target::Page,
            Some("message") => Target::Message,
            _ => Target::Dump,
        }
    }

    pub fn prefix(self) -> &'static str {
        match self {
            Target::Dump => "dump",
            Target::Page => "page",
            Target::Message => "message",
        }
    }
}

/// Runs every target on `input`: what the replay of the corpus does.
pub fn run_all(input: &[u8]) {
    for target in [Target::Dump, Target::Page, Target::Message] {
        run(target, input);
    }
}

/// Runs `target` on `input`; returns what it did, coarsely: inputs with a
/// new outcome are kept in the corpus (the engine has no coverage feedback;
/// outcomes stand in for it).
pub fn run(target: Target, input: &[u8]) -> u64 {
    let mut outcome = Fnv::new();
    outcome.add(target as u64);
    match target {
        Target::Dump => dump_target(input, &mut outcome),
        Target::Page => page_target(input, &mut outcome),
        Target::Message => message_target(input, &mut outcome),
    }
    outcome.0
}

fn dump_target(input: &[u8], outcome: &mut Fnv) {
    match dump::load_reader(input) {
        Ok(loaded) => {
            outcome.add(1);
            outcome.add(loaded.read.len() as u64);
            let now: Time = "2026-01-01T00:00:00Z".parse().expect("a valid time");
            let (findings, roots) =
                diagnosis::explain_with(&loaded.cluster, now, &diagnosis::Settings::default());
            outcome.add(findings.len().min(8) as u64);
            for f in &findings {
                outcome.add_str(&f.anomaly().to_string());
                outcome.add_str(&f.cause.to_string());
            }
            let links = RunbookLinks::default();
            let table = output::table::render(&findings, now, &links);
            assert!(
                !table.contains(['\u{1b}', '\u{9b}', '\u{202e}', '\r']),
                "the table let a control character through"
            );
            let _ = output::json::render(&findings, &links);
            let _ = output::table::root_causes(&roots, now, &links);
            let _ = output::metrics::render(&findings, roots);
        }
        Err(e) => {
            outcome.add(2);
            // The error's shape: its words, not its numbers or quoted values.
            let text = e.to_string();
            let shape: String = text
                .split(['"', '`'])
                .step_by(2)
                .flat_map(str::chars)
                .filter(|c| c.is_ascii_alphabetic() || *c == ' ')
                .take(120)
                .collect();
            outcome.add_str(&shape);
            assert!(
                !terminal::visible(&text).contains('\u{1b}'),
                "an error kept an escape on a terminal"
            );
        }
    }
}

fn page_target(input: &[u8], outcome: &mut Fnv) {
    let text = String::from_utf8_lossy(input);
    let pages = [
        decode_page::<Pod>(&text).map(|p| p.items.len()),
        decode_page::<Node>(&text).map(|p| p.items.len()),
        decode_page::<Namespace>(&text).map(|p| p.items.len()),
        decode_page::<Deployment>(&text).map(|p| p.items.len()),
        decode_page::<ReplicaSet>(&text).map(|p| p.items.len()),
        decode_page::<StatefulSet>(&text).map(|p| p.items.len()),
        decode_page::<DaemonSet>(&text).map(|p| p.items.len()),
        decode_page::<ReplicationController>(&text).map(|p| p.items.len()),
        decode_page::<Job>(&text).map(|p| p.items.len()),
        decode_page::<CoreEvent>(&text).map(|p| p.items.len()),
    ];
    for page in pages {
        outcome.add(page.map_or(0, |n| n.min(4) as u64 + 1));
    }
}

fn message_target(input: &[u8], outcome: &mut Fnv) {
    let text = String::from_utf8_lossy(input);
    // The first line as the reason, the rest as the message; and the whole
    // text as a message.
    let (reason, message) = text.split_once('\n').unwrap_or(("Failed", &text));
    for message in [message, &text] {
        outcome.add_str(&format!("{:?}", classify::image_pull(message)));
        outcome.add(u64::from(classify::is_pull_failure_event(reason, message)));
        outcome.add_str(&format!("{:?}", classify::creating_event(reason, message)));
        outcome.add_str(&format!("{:?}", classify::container_config(message)));
        outcome.add_str(&format!(
            "{:?}",
            classify::last_termination(reason, 137, message)
        ));
        outcome.add_str(&format!(
            "{:?}",
            classify::termination_event(reason, message)
        ));
        outcome.add(classify::scheduler_reasons(message).reasons.len() as u64);
        outcome.add(classify::remaining_resources(message).len() as u64);
        outcome.add(classify::remaining_finalizers(message).len() as u64);
        outcome.add_str(&format!("{:?}", classify::refusal(message)));
        outcome.add(u64::from(classify::is_refusal_event(reason)));
        let shown = terminal::visible(message);
        assert!(
            !shown.contains(['\u{1b}', '\u{9b}', '\u{202e}']),
            "visible() let a control through"
        );
    }
}

/// FNV-1a, for outcome signatures.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, n: u64) {
        for b in n.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn add_str(&mut self, s: &str) {
        for b in s.bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// xorshift64*: deterministic, fast, enough for choosing mutations.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Pieces that matter to the loaders and the classifiers: structure, the
/// limits of numbers and times, controls, bidi, and words of real messages.
const DICTIONARY: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "\n",
    "\n- ",
    ": ",
    "---\n",
    "...\n",
    "null",
    "true",
    "-1",
    "0",
    "2147483647",
    "2147483648",
    "4294967295",
    "18446744073709551616",
    "1e309",
    "-9223372036854775809",
    "9999-12-31T23:59:59Z",
    "10000-01-01T00:00:00Z",
    "-009999-01-01T00:00:00Z",
    "0000-00-00T00:00:00Z",
    "2024-05-01T12:00:00.999999999+14:00",
    "\u{1b}[31m",
    "\u{9b}2J",
    "\u{9d}8;;http://x\u{7}",
    "\u{202e}",
    "\u{2066}",
    "\r",
    "\u{0}",
    "\u{feff}",
    "\\u0000",
    "\\ud800",
    "&anchor ",
    "*anchor",
    "<<: *anchor",
    "!!binary ",
    "|\n  ",
    ">-\n  ",
    "'",
    "#",
    "%YAML 1.2\n",
    "kind: List\n",
    "items:\n",
    "apiVersion: v1\n",
    "\"kind\":\"List\"",
    "\"items\":[",
    "metadata:\n  name: x\n",
    "resourceVersion: \"\"\n",
    "deletionTimestamp: ",
    "\"deletionTimestamp\":\"",
    "finalizers:\n- a\n",
    "0/",
    " nodes are available: ",
    " Insufficient cpu",
    " node(s) had untolerated taint",
    "Back-off pulling image \"",
    "rpc error: code = Unknown desc = ",
    "failed to pull and unpack image",
    "exceeded quota: ",
    "admission webhook \"",
    " denied the request: ",
    "violates PodSecurity \"",
    "OOMKilled",
    "Some resources are remaining: ",
    "has 4294967295 resource instances",
    "Error: ",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "FailedScheduling",
    "FailedCreate",
    "FailedMount",
];

/// A mutation of `input`, using `other` for splices.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = data.len();
        match rng.below(11) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] =
                    [0, 0xff, 0x7f, 0x80, b'"', b'\n', b' ', b'\\', 0xc3, 0xe2][rng.below(10)];
            }
            2 if len > 0 => {
                // Cut short: a dump truncated anywhere.
                data.truncate(rng.below(len));
            }
            3 if len > 1 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                data.drain(start..end);
            }
            4 if len > 1 => repeat_a_piece(rng, &mut data),
            5 | 6 => {
                let token = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                let at = rng.below(len + 1);
                data.splice(at..at, token.iter().copied());
            }
            7 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(512)).min(other.len());
                let at = rng.below(len + 1);
                data.splice(at..at, other[start..end].iter().copied());
            }
            8 if len > 0 => replace_a_number(rng, &mut data),
            9 if len > 0 => {
                let i = rng.below(len);
                data.insert(i, (rng.next_u64() & 0xff) as u8);
            }
            _ => move_a_line(rng, &mut data),
        }
    }
    // Inputs stay small, so millions of them run in minutes.
    data.truncate(64 * 1024);
    data
}

/// Repeats a piece of `data` a few times somewhere in it: deep nesting, long
/// lists, long names. `data` holds two bytes or more.
fn repeat_a_piece(rng: &mut Rng, data: &mut Vec<u8>) {
    let len = data.len();
    let start = rng.below(len);
    let end = (start + 1 + rng.below(256)).min(len);
    let piece = data[start..end].to_vec();
    let times = 1 + rng.below(8);
    let at = rng.below(len + 1);
    let repeated: Vec<u8> = piece
        .iter()
        .copied()
        .cycle()
        .take(piece.len() * times)
        .collect();
    data.splice(at..at, repeated);
}

/// Replaces a number-like run of digits by a limit. `data` is not empty.
fn replace_a_number(rng: &mut Rng, data: &mut Vec<u8>) {
    let i = rng.below(data.len());
    if let Some(p) = data[i..].iter().position(u8::is_ascii_digit) {
        let start = i + p;
        let end = start
            + data[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        let limit = [
            "4294967295",
            "9223372036854775807",
            "99999999999999999999",
            "-1",
            "0",
        ][rng.below(5)];
        data.splice(start..end, limit.bytes());
    }
}

/// Moves a line elsewhere: keys out of order, items moved.
fn move_a_line(rng: &mut Rng, data: &mut Vec<u8>) {
    let lines: Vec<usize> = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
        .collect();
    if lines.len() >= 3 {
        let a = rng.below(lines.len() - 1);
        let (s, e) = (lines[a] + 1, lines[a + 1] + 1);
        let line = data[s..e].to_vec();
        data.drain(s..e);
        let to = lines[rng.below(lines.len() - 1)].min(data.len());
        data.splice(to..to, line);
    }
}
