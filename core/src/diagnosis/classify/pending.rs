//! The scheduler's PodScheduled message (or FailedScheduling event): which
//! reason excluded how many nodes.
//!
//! Every scheduler since 1.0 wrote the same thing, a list of reasons with a
//! count of nodes each, in one of these shapes:
//!
//! | since | shape |
//! |---|---|
//! | 1.0 | `Failed for reason PodFitsPorts and possibly others` |
//! | 1.3 | `pod (p) failed to fit in any node` + `fit failure on node (n): Insufficient cpu`, a line per node |
//! | 1.5 | `pod (p) failed to fit in any node fit failure summary on nodes : Insufficient pods (2), PodToleratesNodeTaints (1)` |
//! | 1.6 | `No nodes are available that match all of the (following) predicates:: Insufficient cpu (9), MatchNodeSelector (18).` |
//! | 1.10 | `0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had taint {...}, that the pod didn't tolerate.` (Volcano: `nodes are unavailable:`) |
//! | 1.24 | the same, then `. preemption: 0/5 nodes are available: ...` (not a reason) |
//!
//! Each reason is then either a predicate or plugin name (`MatchInterPodAffinity`,
//! `NoVolumeZoneConflict`, the names of the old shapes), looked up in
//! [`PREDICATES`], or the words of a newer scheduler, read with [`REASONS`].

use std::collections::BTreeMap;

use super::{Rule, first_match};
use crate::diagnosis::PendingCause;

use PendingCause::*;

/// Predicate names (before 1.13), the failure names 1.7-1.9 printed for some
/// of them (`NodeUnderMemoryPressure (1)`), and plugin names, lower-cased,
/// with the cause the same check has in a newer scheduler's words.
const PREDICATES: &[(&str, PendingCause)] = &[
    // resources
    ("podfitsresources", InsufficientOther),
    ("noderesourcesfit", InsufficientOther),
    ("podexceedsfreecpu", InsufficientCpu),
    ("podexceedsfreememory", InsufficientMemory),
    ("podexceedsmaxpodnumber", InsufficientPods),
    // host ports
    ("podfitsports", HostPort),
    ("podfitshostports", HostPort),
    ("nodeports", HostPort),
    // the node's labels and name
    ("matchnodeselector", NodeAffinity),
    ("podselectormatches", NodeAffinity),
    ("nodeaffinity", NodeAffinity),
    ("hostname", NodeAffinity),
    ("podfitshost", NodeAffinity),
    ("nodename", NodeAffinity),
    ("checknodelabelpresence", NodeAffinity),
    // other pods
    ("matchinterpodaffinity", PodAffinity),
    ("interpodaffinity", PodAffinity),
    ("checkserviceaffinity", PodAffinity),
    ("serviceaffinity", PodAffinity),
    ("podaffinityrulesnotmatch", PodAffinity),
    ("existingpodsantiaffinityrulesnotmatch", PodAntiAffinity),
    ("podantiaffinityrulesnotmatch", PodAntiAffinity),
    ("evenpodsspread", TopologySpread),
    ("podtopologyspread", TopologySpread),
    // taints and the node's state
    ("podtoleratesnodetaints", Taint),
    ("podtoleratesnodenoexecutetaints", Taint),
    ("tainttoleration", Taint),
    ("checknodeunschedulable", NodeUnschedulable),
    ("nodeunschedulable", NodeUnschedulable),
    ("checknodecondition", NodeNotReady),
    ("checknodememorypressure", NodeMemoryPressure),
    ("checknodediskpressure", NodeDiskPressure),
    ("checknodepidpressure", NodePidPressure),
    ("nodeoutofdisk", NodeDiskPressure),
    ("nodenotready", NodeNotReady),
    ("nodeundermemorypressure", NodeMemoryPressure),
    ("nodeunderdiskpressure", NodeDiskPressure),
    ("nodeunderpidpressure", NodePidPressure),
    ("nodenetworkunavailable", NodeNotReady),
    ("nodeunknowncondition", NodeNotReady),
    // volumes
    ("novolumezoneconflict", VolumeZone),
    ("volumezone", VolumeZone),
    ("novolumenodeconflict", VolumeZone),
    ("volumenodeaffinityconflict", VolumeZone),
    ("checkvolumebinding", VolumeBinding),
    ("volumebinding", VolumeBinding),
    ("volumebindingnomatch", VolumeBinding),
    ("maxebsvolumecount", TooManyVolumes),
    ("maxgcepdvolumecount", TooManyVolumes),
    ("maxazurediskvolumecount", TooManyVolumes),
    ("maxcindervolumecount", TooManyVolumes),
    ("maxcsivolumecountpred", TooManyVolumes),
    ("maxcsivolumecount", TooManyVolumes),
    ("maxvolumecount", TooManyVolumes),
    ("nodevolumelimits", TooManyVolumes),
    // "node(s) had no available disk" in newer words: no cause of its own here
    ("nodiskconflict", Other),
    ("volumerestrictions", Other),
    ("generalpredicates", Other),
];

/// A newer scheduler's words for its reasons, most specific first.
const REASONS: &[Rule<PendingCause>] = &[
    // Dynamic Resource Allocation (1.31+; the DynamicResources plugin's
    // words, dynamicresources.go, and the resourceclaim helpers'). First: a
    // claim's name may contain any other reason's words.
    (
        ClaimMissing,
        &[
            "resourceclaim not created yet",
            "could not find resourceclaim",
            "was not created for pod",
            // 1.26-1.30: a template's claim not generated yet; it names the
            // claim in quotes, so before the deletion's words.
            "waiting for dynamic resource controller to create the resourceclaim",
        ],
    ),
    (ClaimDeleting, &["resourceclaim \""]),
    // Classic DRA (1.26-1.31: a control-plane driver allocates): the
    // scheduler chose a node and waits for the driver ("... to allocate
    // resource" from Reserve, "... to provide information" from PreScore):
    // the claims are not usable yet, no node is at fault.
    (ClaimsPending, &["waiting for resource driver to "]),
    (
        ClaimOnOtherNode,
        &["resourceclaim not available on the node"],
    ),
    (
        ClaimInUse,
        &["resourceclaim in use", "in the process of being allocated"],
    ),
    (DeviceClassMissing, &["device class "]),
    (
        DevicesUnavailable,
        &[
            "cannot allocate all claims",
            "timed out trying to allocate devices",
            "cannot schedule extended resource claim",
            "invalid resource pools were encountered",
        ],
    ),
    (
        InsufficientCpu,
        &["insufficient cpu", "enough resource: cpu"],
    ),
    (
        InsufficientMemory,
        &["insufficient memory", "enough resource: memory"],
    ),
    (
        InsufficientPods,
        &[
            "insufficient pods",
            "too many pods",
            "enough resource: pods",
        ],
    ),
    (
        InsufficientEphemeralStorage,
        &["insufficient ephemeral-storage"],
    ),
    (InsufficientOther, &["insufficient ", "enough resource"]),
    (
        PodAntiAffinity,
        &["anti-affinity", "existingpodsantiaffinityrulesnotmatch"],
    ),
    (
        PodAffinity,
        &["pod affinity", "service affinity", "matchinterpodaffinity"],
    ),
    // Before node affinity: "volume node affinity conflict" is about the volume.
    (
        VolumeZone,
        &[
            "volume node affinity conflict",
            "no available volume zone",
            "novolumezoneconflict",
            "volume zone",
        ],
    ),
    (
        NodeAffinity,
        &[
            "node affinity/selector",
            "node selector",
            "matchnodeselector",
            "node affinity",
            "nodeaffinity",
            "requested hostname",
            "requested labels",
        ],
    ),
    // The node's pressure conditions, as conditions or as the taints they
    // became in 1.13-1.17: the node is Ready but short of a resource. Before
    // not-ready: a pressured node is not a lost one.
    (
        NodeDiskPressure,
        &[
            "node.kubernetes.io/disk-pressure",
            "node.kubernetes.io/out-of-disk",
            "had disk pressure",
            "were out of disk",
            "nodeoutofdisk",
            "nodeunderdiskpressure",
        ],
    ),
    (
        NodeMemoryPressure,
        &[
            "node.kubernetes.io/memory-pressure",
            "had memory pressure",
            "nodeundermemorypressure",
        ],
    ),
    (
        NodePidPressure,
        &[
            "node.kubernetes.io/pid-pressure",
            "had pid pressure",
            "nodeunderpidpressure",
        ],
    ),
    // The node's other conditions: the node is not fit to run pods, whatever
    // the pod tolerates.
    (
        NodeNotReady,
        &[
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "node.kubernetes.io/network-unavailable",
            "were not ready",
            "nodenotready",
            "unavailable network",
        ],
    ),
    (
        NodeUnschedulable,
        &[
            "node.kubernetes.io/unschedulable",
            "were unschedulable",
            "nodeunschedulable",
        ],
    ),
    (Taint, &["taint"]),
    (
        HostPort,
        &[
            "free ports",
            "podfitshostports",
            "host port",
            "podfitsports",
        ],
    ),
    // A claim bound to a volume that is gone is a binding problem, though the
    // message starts with "persistentvolumeclaim".
    (
        VolumeBinding,
        &[
            "bound to non-existent persistentvolume",
            "unbound immediate persistentvolumeclaims",
            "unbound persistentvolumeclaims",
            "available persistent volumes to bind",
            "enough free storage",
            "checkvolumebinding",
            "volumebinding",
            "unbound",
        ],
    ),
    (PvcNotFound, &["persistentvolumeclaim \""]),
    (
        VolumeBinding,
        &["persistentvolumeclaim", "persistentvolume"],
    ),
    (TopologySpread, &["topology spread"]),
    (
        TooManyVolumes,
        &[
            "max volume count",
            "maxvolumecount",
            "maxebsvolumecount",
            "maxgcepdvolumecount",
            "maxazurediskvolumecount",
        ],
    ),
];

/// The cause of one reason: a predicate or plugin name, else its words.
fn reason(text: &str) -> PendingCause {
    let text = text.trim().trim_end_matches('.').trim().to_lowercase();
    if let Some((_, cause)) = PREDICATES.iter().find(|(name, _)| *name == text) {
        return *cause;
    }
    first_match(REASONS, &text).unwrap_or(Other)
}

/// What a PodScheduled=False message says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedulerReasons {
    /// Reason → number of nodes it excluded.
    pub reasons: BTreeMap<PendingCause, u32>,
    /// N in `0/N nodes are available`.
    pub nodes_total: Option<u32>,
}

impl SchedulerReasons {
    fn add(&mut self, text: &str, count: u32) {
        let text = text.trim().trim_end_matches('.').trim();
        if text.is_empty() {
            return;
        }
        // Counts come from text: a repeated reason must not overflow.
        let nodes = self.reasons.entry(reason(text)).or_default();
        *nodes = nodes.saturating_add(count);
    }
}

/// What the DynamicResources plugin's PostFilter appends (dynamicresources.go),
/// cut wherever it starts: a message copied without the space before it, or
/// holding nothing else, is no reason either (and never a claim being deleted).
const DRA_POST_FILTER: &[&str] = &[
    "no new claims to deallocate",
    "still not schedulable",
    "deallocation of ResourceClaim completed",
    "deletion of ResourceClaim completed",
];

/// Parses every shape the scheduler has used (see the module documentation).
pub fn scheduler_reasons(message: &str) -> SchedulerReasons {
    let mut out = SchedulerReasons::default();
    // The preemption tail repeats the node count with other words; it is not a reason.
    let message = message.split(" preemption:").next().unwrap_or(message);
    let message = message.split(".preemption:").next().unwrap_or(message);
    // The DynamicResources plugin's PostFilter words come before the
    // preemption tail, for every unschedulable pod on 1.34+ (and before 1.33),
    // claims or not: not a reason either.
    let message = DRA_POST_FILTER
        .iter()
        .fold(message, |m, tail| m.split(tail).next().unwrap_or(m));

    // Volcano's scheduler says "nodes are unavailable:" with the same list.
    let counted = message
        .split_once("nodes are available:")
        .or_else(|| message.split_once("nodes are unavailable:"));
    if let Some((head, list)) = counted {
        let total = head
            .trim()
            .rsplit_once('/')
            .and_then(|(_, n)| n.trim().parse().ok());
        counted_first(&mut out, list, total);
        out.nodes_total = total;
    } else if let Some((_, list)) = message
        .split_once("predicates:")
        .or_else(|| message.split_once("fit failure summary on nodes"))
    {
        counted_after(&mut out, list.trim_start_matches([':', ' ']));
    } else if message.contains("fit failure on node (") {
        // One line per node: `fit failure on node (n): Insufficient cpu`.
        for line in message.split("fit failure on node (").skip(1) {
            if let Some((_, why)) = line.split_once("):") {
                out.add(why, 1);
            }
        }
    } else if let Some((_, rest)) = message.split_once("Failed for reason ") {
        out.add(rest.split(" and possibly").next().unwrap_or(rest), 1);
    } else if !message.trim().is_empty() {
        out.add(message, 1);
    }
    out
}

/// `2 Insufficient cpu, 3 node(s) had taint {...}, that the pod didn't tolerate`:
/// items start with a count; text without one continues the previous item (the
/// old taint wording has a comma inside it) or, first, applies to all nodes.
fn counted_first(out: &mut SchedulerReasons, list: &str, total: Option<u32>) {
    let mut items: Vec<(Option<u32>, String)> = Vec::new();
    for piece in list.split(", ") {
        let piece = piece.trim();
        let counted = piece
            .split_once(' ')
            .and_then(|(n, rest)| n.parse::<u32>().ok().map(|n| (n, rest)));
        match (counted, items.last_mut()) {
            (Some((n, rest)), _) => items.push((Some(n), rest.to_string())),
            (None, Some(last)) => {
                last.1.push_str(", ");
                last.1.push_str(piece);
            }
            (None, None) => items.push((None, piece.to_string())),
        }
    }
    for (count, text) in items {
        out.add(&text, count.or(total).unwrap_or(1));
    }
}

/// `Insufficient cpu (2), MatchNodeSelector (1).`: counts in parentheses after.
fn counted_after(out: &mut SchedulerReasons, list: &str) {
    for piece in list.split(", ") {
        let piece = piece.trim().trim_end_matches('.');
        match piece.rsplit_once(" (") {
            Some((text, n)) => out.add(text, n.trim_end_matches(')').parse().unwrap_or(1)),
            None => out.add(piece, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(message: &str) -> Vec<(PendingCause, u32)> {
        scheduler_reasons(message).reasons.into_iter().collect()
    }

    #[test]
    fn predicate_names_read_like_the_newer_words() {
        assert_eq!(
            reason("MatchInterPodAffinity"),
            reason("node(s) didn't match pod affinity rules")
        );
        assert_eq!(
            reason("NoVolumeZoneConflict"),
            reason("node(s) had no available volume zone")
        );
        assert_eq!(
            reason("PodToleratesNodeTaints"),
            reason("node(s) had taints that the pod didn't tolerate")
        );
        assert_eq!(
            reason("MatchNodeSelector"),
            reason("node(s) didn't match node selector")
        );
        assert_eq!(
            reason("PodFitsHostPorts"),
            reason("node(s) didn't have free ports for the requested pod ports")
        );
        assert_eq!(
            reason("CheckNodeMemoryPressure"),
            reason("node(s) had memory pressure")
        );
        assert_eq!(
            reason("MaxEBSVolumeCount"),
            reason("node(s) exceed max volume count")
        );
        assert_eq!(
            reason("CheckVolumeBinding"),
            reason("node(s) didn't find available persistent volumes to bind")
        );
        assert_eq!(
            reason("NoDiskConflict"),
            reason("node(s) had no available disk")
        );
    }

    #[test]
    fn every_shape() {
        assert_eq!(
            parsed(
                "pod (p) failed to fit in any node\nfit failure summary on nodes : Insufficient cpu (2), CheckServiceAffinity (1)"
            ),
            [(InsufficientCpu, 2), (PodAffinity, 1)]
        );
        assert_eq!(
            parsed(
                "pod (p) failed to fit in any node\nfit failure on node (a): Insufficient memory\nfit failure on node (b): MatchNodeSelector"
            ),
            [(InsufficientMemory, 1), (NodeAffinity, 1)]
        );
        assert_eq!(
            parsed("Failed for reason NoDiskConflict and possibly others"),
            [(Other, 1)]
        );
        assert_eq!(
            parsed("0/2 nodes are available: 2 CheckNodeUnschedulable."),
            [(NodeUnschedulable, 2)]
        );
    }

    #[test]
    fn a_missing_claim_and_a_claim_without_its_volume() {
        assert_eq!(
            parsed(r#"0/1 nodes are available: 1 persistentvolumeclaim "c" not found."#),
            [(PvcNotFound, 1)]
        );
        assert_eq!(
            parsed(
                r#"0/2 nodes are available: persistentvolumeclaim "c" bound to non-existent persistentvolume "v"."#
            ),
            [(VolumeBinding, 2)]
        );
    }

    /// The DynamicResources PostFilter's words, however they are joined to
    /// the reasons, are none of them.
    #[test]
    fn the_dra_post_filter_words_are_no_reason() {
        assert_eq!(parsed("no new claims to deallocate"), []);
        assert_eq!(
            parsed(
                "0/3 nodes are available: 3 node(s) had untolerated taint(s).no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
            ),
            [(Taint, 3)]
        );
        assert_eq!(
            parsed(
                r#"0/2 nodes are available: resourceclaim "gpu-0" is being deleted. no new claims to deallocate"#
            ),
            [(ClaimDeleting, 2)]
        );
    }

    #[test]
    fn nothing_from_nothing() {
        assert_eq!(scheduler_reasons(""), SchedulerReasons::default());
        assert_eq!(parsed("Failed for reason "), []);
        assert_eq!(parsed("fit failure on node (a"), []);
    }
}
