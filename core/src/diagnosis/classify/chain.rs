//! The error chain of a runtime's message, read by its structure.
//!
//! A failure reaches the kubelet through a chain of wrappers, and Go writes
//! the chain outermost first, each layer joined to the next by ": ":
//!
//! ```text
//! Failed to pull image "x":                        kubelet
//! rpc error: code = NotFound desc =                CRI (the gRPC code)
//! failed to pull and unpack image "x":             runtime (containerd; docker says
//!                                                  "Error response from daemon:", CRI-O
//!                                                  "initializing source docker://x:")
//! failed to resolve reference "x":                 registry client ("reading manifest
//!                                                  t in r:", "pinging container registry r:")
//! failed to do request: Head "https://r/v2/...":   HTTP
//! dial tcp 10.0.0.1:443: i/o timeout               transport (the errno)
//! ```
//!
//! So the innermost error is the rightmost text, and the wrappers in front of
//! it name no cause. A classifier lists its [`Signal`]s, the words that do name
//! one at some layer (an errno, an HTTP status, a registry's error code, a
//! content-store check), and [`Chain::decide`] picks:
//!
//! 1. a signal that *owns* its detail, outermost first: what follows it is why
//!    that step failed, not another failure (`lookup r on 10.0.0.10:53: read
//!    udp ...: i/o timeout` is a name that does not resolve; `x509: ...` is a
//!    certificate, whatever the verifier adds);
//! 2. else the innermost *plain* signal: the transport error beats the wrapper
//!    text, the registry's answer beats the runtime's summary of it;
//! 3. else the innermost *weak* signal: words that only mean something when
//!    nothing more precise is there (containerd's trailing `: not found`);
//! 4. else the gRPC code of the CRI error, if the classifier maps it.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

/// The gRPC status code of a CRI error (`rpc error: code = X desc = ...`),
/// written by name or, by kubelets before 1.9, by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrpcCode {
    Canceled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
    Unauthenticated,
}

impl GrpcCode {
    fn parse(token: &str) -> Option<GrpcCode> {
        use GrpcCode::*;
        Some(match token {
            "canceled" | "1" => Canceled,
            "unknown" | "2" => Unknown,
            "invalidargument" | "3" => InvalidArgument,
            "deadlineexceeded" | "4" => DeadlineExceeded,
            "notfound" | "5" => NotFound,
            "alreadyexists" | "6" => AlreadyExists,
            "permissiondenied" | "7" => PermissionDenied,
            "resourceexhausted" | "8" => ResourceExhausted,
            "failedprecondition" | "9" => FailedPrecondition,
            "aborted" | "10" => Aborted,
            "outofrange" | "11" => OutOfRange,
            "unimplemented" | "12" => Unimplemented,
            "internal" | "13" => Internal,
            "unavailable" | "14" => Unavailable,
            "dataloss" | "15" => DataLoss,
            "unauthenticated" | "16" => Unauthenticated,
            _ => return None,
        })
    }
}

/// How a signal weighs against the others in the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Weight {
    /// Decides for everything after it (its detail); the outermost one wins.
    Owns,
    /// The innermost one wins.
    Plain,
    /// Counts only when no owning or plain signal is there.
    Weak,
}

/// Words that name a cause at some layer of the chain. `cause: None` names a
/// failure that is no cause of this family (the runtime's own socket).
pub(crate) struct Signal<C: 'static> {
    pub cause: Option<C>,
    pub weight: Weight,
    pub words: &'static [&'static str],
}

/// A message made ready for reading: lower-cased, quotes unescaped once (the
/// kubelet's and containerd's logs escape them), typographic quotes made plain,
/// with the CRI error's gRPC code taken out.
pub(crate) struct Chain {
    pub code: Option<GrpcCode>,
    pub text: String,
}

impl Chain {
    pub(crate) fn parse(message: &str) -> Chain {
        let text = message
            .to_lowercase()
            .replace("\\\"", "\"")
            .replace(['\u{201c}', '\u{201d}'], "\"");
        let code = grpc_code(&text);
        Chain { code, text }
    }

    pub(crate) fn contains(&self, words: &str) -> bool {
        self.text.contains(words)
    }

    /// The cause the chain names by `signals` (see the module documentation),
    /// then by `code` for the CRI error's gRPC code.
    pub(crate) fn decide<C: Copy>(
        &self,
        signals: &Signals<C>,
        code: impl Fn(GrpcCode) -> Option<C>,
    ) -> Option<C> {
        // (position, row) of the outermost owning, innermost plain and weak
        // signals; at one position the row listed first wins.
        let mut owning: Option<(usize, usize)> = None;
        let mut plain: Option<(usize, usize)> = None;
        let mut weak: Option<(usize, usize)> = None;
        let words = signals.words();
        // Every occurrence of every word in one pass: the first occurrence of
        // an owning signal and the last of the others are among them.
        for found in words.automaton.find_overlapping_iter(self.text.as_str()) {
            let row = words.row_of[found.pattern().as_usize()];
            let at = found.start();
            match signals.list[row].weight {
                Weight::Owns => {
                    if owning.is_none_or(|held| (at, row) < held) {
                        owning = Some((at, row));
                    }
                }
                weight => {
                    let best = if weight == Weight::Plain {
                        &mut plain
                    } else {
                        &mut weak
                    };
                    if best.is_none_or(|(held_at, held_row)| {
                        at > held_at || (at == held_at && row < held_row)
                    }) {
                        *best = Some((at, row));
                    }
                }
            }
        }
        match owning.or(plain).or(weak) {
            Some((_, row)) => signals.list[row].cause,
            None => self.code.and_then(code),
        }
    }
}

/// A classifier's signals, with their words made into one automaton the first
/// time a message is read: a message is then read once, not once per word (a
/// search per word was half of a scrape with 15,000 failing pulls).
pub(crate) struct Signals<C: 'static> {
    list: &'static [Signal<C>],
    words: OnceLock<Words>,
}

struct Words {
    automaton: AhoCorasick,
    /// The signal (row of the list) each pattern belongs to.
    row_of: Vec<usize>,
}

impl<C> Signals<C> {
    pub(crate) const fn new(list: &'static [Signal<C>]) -> Self {
        Signals {
            list,
            words: OnceLock::new(),
        }
    }

    fn words(&self) -> &Words {
        self.words.get_or_init(|| {
            let (patterns, row_of): (Vec<&str>, Vec<usize>) = self
                .list
                .iter()
                .enumerate()
                .flat_map(|(row, signal)| signal.words.iter().map(move |w| (*w, row)))
                .unzip();
            Words {
                automaton: AhoCorasick::new(patterns)
                    .expect("the signals' words are few and short"),
                row_of,
            }
        })
    }
}

/// `rpc error: code = X desc = ...` → X (the first one: the CRI's own).
fn grpc_code(text: &str) -> Option<GrpcCode> {
    let (_, rest) = text.split_once("rpc error:")?;
    let rest = rest.trim_start().strip_prefix("code")?;
    let rest = rest.trim_start().strip_prefix('=')?;
    let token = rest.split_whitespace().next()?;
    GrpcCode::parse(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grpc_code_by_name_or_number() {
        let code = |m: &str| Chain::parse(m).code;
        assert_eq!(
            code("rpc error: code = NotFound desc = x"),
            Some(GrpcCode::NotFound)
        );
        assert_eq!(
            code("rpc error: code = 4 desc = context deadline exceeded"),
            Some(GrpcCode::DeadlineExceeded)
        );
        // CRI-O's log once had two spaces and an accent
        assert_eq!(
            code("rpc error: code  = Unknown déc = error pinging"),
            Some(GrpcCode::Unknown)
        );
        assert_eq!(code("rpc error: code = Bogus desc = x"), None);
        assert_eq!(code("rpc error:"), None);
        assert_eq!(code("no code here"), None);
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum T {
        Outer,
        Inner,
        Owner,
        Faint,
        Coded,
    }

    static SIGNALS: Signals<T> = Signals::new(&[
        Signal {
            cause: Some(T::Owner),
            weight: Weight::Owns,
            words: &["lookup "],
        },
        Signal {
            cause: Some(T::Outer),
            weight: Weight::Plain,
            words: &["wrapper"],
        },
        Signal {
            cause: Some(T::Inner),
            weight: Weight::Plain,
            words: &["errno"],
        },
        Signal {
            cause: Some(T::Faint),
            weight: Weight::Weak,
            words: &["not found"],
        },
        Signal {
            cause: None,
            weight: Weight::Owns,
            words: &["dial unix"],
        },
    ]);

    fn decide(message: &str) -> Option<T> {
        Chain::parse(message).decide(&SIGNALS, |c| (c == GrpcCode::NotFound).then_some(T::Coded))
    }

    #[test]
    fn the_innermost_plain_signal_wins() {
        assert_eq!(decide("wrapper: errno"), Some(T::Inner));
        assert_eq!(decide("errno: wrapper"), Some(T::Outer));
        // the last occurrence counts
        assert_eq!(decide("wrapper: errno: wrapper again"), Some(T::Outer));
    }

    #[test]
    fn an_owning_signal_decides_for_its_detail() {
        assert_eq!(decide("wrapper: lookup x: errno"), Some(T::Owner));
        assert_eq!(decide("dial unix /run/x.sock: lookup x: errno"), None);
    }

    #[test]
    fn weak_signals_and_codes_only_when_nothing_else() {
        assert_eq!(decide("wrapper: not found"), Some(T::Outer));
        assert_eq!(decide("x: not found"), Some(T::Faint));
        assert_eq!(
            decide("rpc error: code = NotFound desc = nothing"),
            Some(T::Coded)
        );
        assert_eq!(decide("rpc error: code = Unknown desc = nothing"), None);
    }

    #[test]
    fn escaped_and_typographic_quotes_read_as_plain_ones() {
        assert_eq!(
            Chain::parse(r#"image \"x\": “y”"#).text,
            r#"image "x": "y""#
        );
    }
}
