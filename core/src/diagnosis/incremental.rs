//! The diagnosis of a model that keeps changing, judged again piece by piece.
//!
//! The families that judge pod by pod ([`Judge::EachPod`]) and controller
//! by controller ([`Judge::EachController`]) are the bulk of the work in a
//! large cluster; what each pod and each controller was found is kept with
//! the first moment it could read differently, and judged again only when
//! the model reports a change to it or to what it reads ([`Changes`]), when
//! that moment comes, or (a controller) when the findings about its pods
//! or about itself changed. The families that judge the whole cluster run
//! on every judgement, in their place in the order, over the same findings
//! a full diagnosis would hand them: the result is what
//! [`diagnose_until`](super::diagnose_until) gives, finding for finding.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use foldhash::HashMap;

use super::{
    Anomaly, FAMILIES, Finding, Found, Input, Judge, KeptByPod, Lasting, Settings, Verdicts, sort,
};
use crate::model::{Changes, Cluster, Kind, ObjectKey, Pod, Time};

/// One pod's findings from the families that judge each pod.
struct PodFindings {
    /// As its families found them, each with the index of its family in
    /// [`FAMILIES`] (the families after them read them in that order);
    /// shared with every judgement that keeps them.
    findings: Vec<(usize, Arc<Finding>)>,
    /// When, with the model unchanged, they could read differently.
    until: Option<Time>,
    /// They read every pod: any pod's change may change them.
    read_every_pod: bool,
}

/// The verdict on one controller.
struct Verdict {
    finding: Option<Arc<Finding>>,
    until: Option<Time>,
}

type ControllerKey = (Kind, ObjectKey);

/// The findings of a changing model, kept between judgements.
pub struct Incremental {
    settings: Settings,
    /// Each unsettled pod's findings, in the order of the model's unsettled
    /// pods (by key, the key shared with the model's): a judgement walks the
    /// two side by side, so a pod kept costs no lookup.
    pods: Vec<(Arc<ObjectKey>, PodFindings)>,
    /// The pods kept, by the moment their findings stop holding.
    due: BTreeSet<(Time, Arc<ObjectKey>)>,
    /// The pods whose findings read every pod: judged every time.
    reading_every_pod: HashSet<Arc<ObjectKey>>,
    /// The verdicts of each family that judges each controller, by its
    /// index in [`FAMILIES`] (empty for the others).
    controllers: Vec<ControllerVerdicts>,
    /// The moment of the last judgement.
    at: Option<Time>,
    /// How many pods the last judgement judged again.
    judged: usize,
    /// The last judgement's findings, in order: a finding judged again alike
    /// is handed out as the one kept, so that what reads the findings can
    /// tell unchanged ones by their address.
    previous: Vec<Arc<Finding>>,
}

/// What a family that judges each controller found, kept.
#[derive(Default)]
struct ControllerVerdicts {
    verdicts: KeptVerdicts,
    /// The findings of the families before it that judge more than one pod,
    /// each with its family's index, as it last read them.
    whole_before: Vec<(usize, Arc<Finding>)>,
}

impl ControllerVerdicts {
    /// Forgets the verdicts that may read differently now: those about the
    /// controllers `touched`, those whose time has come, and all of them
    /// when `whole_before` (the findings of the families before it that
    /// judge more than one pod) changed.
    fn stale(
        &mut self,
        whole_before: &[(usize, Arc<Finding>)],
        everything: bool,
        touched: &[ControllerKey],
        now: Time,
    ) {
        if everything || whole_before != self.whole_before {
            self.verdicts.clear();
            self.whole_before = whole_before.to_vec();
        } else {
            self.verdicts.forget_due(now);
            for key in touched {
                self.verdicts.forget(key);
            }
        }
    }
}

/// The verdicts on controllers, kept.
#[derive(Default)]
struct KeptVerdicts {
    held: HashMap<ControllerKey, Verdict>,
    due: BTreeSet<(Time, ControllerKey)>,
}

impl KeptVerdicts {
    fn clear(&mut self) {
        self.held.clear();
        self.due.clear();
    }

    fn forget(&mut self, key: &ControllerKey) {
        if let Some(Verdict {
            until: Some(until), ..
        }) = self.held.remove(key)
        {
            self.due.remove(&(until, key.clone()));
        }
    }

    /// Forgets the verdicts whose moment has come.
    fn forget_due(&mut self, now: Time) {
        while self.due.first().is_some_and(|(until, _)| *until <= now) {
            if let Some((_, key)) = self.due.pop_first() {
                self.held.remove(&key);
            }
        }
    }
}

/// Judge the controllers not kept.
impl Verdicts for KeptVerdicts {
    fn wanted(&self, kind: Kind, key: &ObjectKey) -> bool {
        !self.held.contains_key(&(kind, key.clone()))
    }

    fn found(&mut self, kind: Kind, key: ObjectKey, finding: Option<Finding>, until: Option<Time>) {
        let key = (kind, key);
        if let Some(until) = until {
            self.due.insert((until, key.clone()));
        }
        self.held.insert(
            key,
            Verdict {
                finding: finding.map(Arc::new),
                until,
            },
        );
    }
}

/// The controller whose verdict reads `kind` `key`: itself, or for a
/// ReplicaSet, the Deployment that controls it now.
fn controller_judged(cluster: &Cluster, kind: &str, key: ObjectKey) -> Option<ControllerKey> {
    match kind {
        "Deployment" => Some((Kind::Deployment, key)),
        "StatefulSet" => Some((Kind::StatefulSet, key)),
        "DaemonSet" => Some((Kind::DaemonSet, key)),
        "Job" => Some((Kind::Job, key)),
        "ReplicaSet" => {
            let owner = cluster.replica_set(&key)?.metadata.controller()?;
            (owner.kind == "Deployment").then(|| {
                (
                    Kind::Deployment,
                    ObjectKey::new(key.namespace, owner.name.as_str()),
                )
            })
        }
        _ => None,
    }
}

impl Incremental {
    pub fn new(settings: Settings) -> Self {
        Incremental {
            settings,
            pods: Vec::new(),
            due: BTreeSet::new(),
            reading_every_pod: HashSet::new(),
            controllers: FAMILIES.iter().map(|_| Default::default()).collect(),
            at: None,
            judged: 0,
            previous: Vec::new(),
        }
    }

    /// Everything wrong in `cluster` at `now`, as [`diagnose_until`]
    /// (super::diagnose_until) gives it, judging again only the pods and
    /// controllers `changes` names (those the model reported since the last
    /// call: [`Cluster::take_changes`]), what depends on them, and those
    /// whose time has come.
    pub fn diagnose(&mut self, cluster: &Cluster, changes: Changes, now: Time) -> Lasting {
        let settings = self.settings.clone();
        let input = Input::new(cluster, now, &settings);
        // A clock gone back could undo what was judged: all of it again.
        let everything = changes.everything || self.at.is_none_or(|at| now < at);
        self.at = Some(now);
        self.judged = 0;
        let mut touched: HashSet<(String, ObjectKey)> = changes.controllers;
        let reading_every_pod: Vec<Arc<ObjectKey>> =
            self.reading_every_pod.iter().cloned().collect();
        // The pods to judge again, in key order, to walk beside the others.
        let mut stale: Vec<&ObjectKey> = Vec::new();
        let mut held = std::mem::take(&mut self.pods);
        if everything {
            held.clear();
            self.due.clear();
            self.reading_every_pod.clear();
        } else {
            stale.extend(&changes.pods);
            stale.extend(reading_every_pod.iter().map(|k| &**k));
            stale.sort_unstable();
            stale.dedup();
        }
        let due = self.pods_due(now);
        let mut stale = stale.into_iter().peekable();
        let mut due = due.iter().peekable();
        let mut held = held.into_iter().peekable();
        let mut kept: Vec<Vec<Arc<Finding>>> = vec![Vec::new(); FAMILIES.len()];
        self.pods.reserve(held.len());
        for (key, pod) in cluster.unsettled_pods_keyed() {
            // What was kept of pods before this one: no longer unsettled.
            while let Some((gone, findings)) = held.next_if(|(k, _)| before(k, key)) {
                self.unschedule(&gone, &findings);
            }
            let was = held.next_if(|(k, _)| same(k, key));
            while stale.next_if(|k| **k < **key).is_some() {}
            while due.next_if(|k| before(k, key)).is_some() {}
            let again =
                stale.next_if(|k| **k == **key).is_some() | due.next_if(|k| same(k, key)).is_some();
            let findings = match was {
                Some((_, held)) if !again => held,
                was => {
                    if let Some((_, was)) = &was {
                        self.unschedule(key, was);
                    }
                    let mut now_held = self.judge(&input, key, pod);
                    if let Some((_, was)) = &was {
                        keep_alike(&mut now_held.findings, &was.findings);
                    }
                    // A pod whose findings changed changes its controller's
                    // verdicts; so may a Terminating one whose did not: a
                    // blocked workload reads its judgement even where it
                    // makes no finding of its own (one the garbage collector
                    // deletes).
                    if pod.is_terminating()
                        || was.is_none_or(|(_, was)| was.findings != now_held.findings)
                    {
                        if let Some(c) = pod.metadata.controller() {
                            let key = ObjectKey::new(key.namespace.clone(), c.name.as_str());
                            touched.insert((c.kind.to_string(), key));
                        }
                    }
                    now_held
                }
            };
            for (family, finding) in &findings.findings {
                kept[*family].push(finding.clone());
            }
            self.pods.push((key.clone(), findings));
        }
        // Pods past the last unsettled one: no longer unsettled either.
        for (key, gone) in held {
            self.unschedule(&key, &gone);
        }
        let touched: Vec<ControllerKey> = touched
            .into_iter()
            .filter_map(|(kind, key)| controller_judged(cluster, &kind, key))
            .collect();
        debug_assert_eq!(self.pods.len(), input.unsettled.len());
        let mut findings = Vec::new();
        // The findings of the families that judge more than one pod, each
        // with its family's index, as they are found (a family only adds).
        let mut others: Vec<(usize, Arc<Finding>)> = Vec::new();
        let kept_by_pod = KeptPods(&self.pods);
        for (index, ((family, kept), held)) in FAMILIES
            .iter()
            .zip(kept)
            .zip(&mut self.controllers)
            .enumerate()
        {
            let from = findings.len();
            match family.judge {
                Judge::EachPod(_) => findings.extend(kept),
                Judge::EachController(judge) => {
                    held.stale(&others, everything, &touched, now);
                    let found = Found::kept(&input, &kept_by_pod, &others);
                    let beyond = judge(&input, &found, &mut held.verdicts);
                    findings.extend(
                        held.verdicts
                            .held
                            .values()
                            .filter_map(|v| v.finding.clone()),
                    );
                    findings.extend(beyond.into_iter().map(Arc::new));
                }
                Judge::Reading(judge) => {
                    let found = Found::kept(&input, &kept_by_pod, &others);
                    let more = judge(&input, &found);
                    findings.extend(more.into_iter().map(Arc::new));
                }
                Judge::Whole(judge) => findings.extend(judge(&input).into_iter().map(Arc::new)),
            }
            if !matches!(family.judge, Judge::EachPod(_)) {
                others.extend(findings[from..].iter().map(|f| (index, f.clone())));
            }
        }
        let mut findings = in_order(findings);
        share_alike(&mut findings, &self.previous);
        self.previous.clone_from(&findings);
        let until = [input.now.next_change(), self.due.first().map(|(t, _)| *t)]
            .into_iter()
            .chain(
                self.controllers
                    .iter()
                    .map(|c| c.verdicts.due.first().map(|(t, _)| *t)),
            )
            .flatten()
            .min();
        Lasting { findings, until }
    }

    /// Judges `pod` by each family that judges pods; schedules it to be
    /// judged again when its findings stop holding.
    fn judge(&mut self, input: &Input<'_>, key: &Arc<ObjectKey>, pod: &Pod) -> PodFindings {
        self.judged += 1;
        let (findings, until, read_every_pod) = input.apart(|| {
            let mut findings = Vec::new();
            let mut out = Vec::new();
            for (index, family) in FAMILIES.iter().enumerate() {
                if let Judge::EachPod(judge) = family.judge {
                    judge(input, pod, &mut out);
                    debug_assert!(
                        out.iter().all(|f| f.kind == Kind::Pod),
                        "a family that judges each pod finds pods ({})",
                        family.name
                    );
                    findings.extend(out.drain(..).map(|f| (index, Arc::new(f))));
                }
            }
            findings
        });
        if let Some(until) = until {
            self.due.insert((until, key.clone()));
        }
        if read_every_pod {
            self.reading_every_pod.insert(key.clone());
        }
        PodFindings {
            findings,
            until,
            read_every_pod,
        }
    }

    /// The pods whose findings stop holding by `now`, in key order (no longer
    /// scheduled).
    fn pods_due(&mut self, now: Time) -> Vec<Arc<ObjectKey>> {
        let mut due = Vec::new();
        while self.due.first().is_some_and(|(until, _)| *until <= now) {
            due.extend(self.due.pop_first().map(|(_, key)| key));
        }
        due.sort_unstable();
        due
    }

    /// How many pods the last judgement judged again (the rest it kept).
    pub fn pods_judged(&self) -> usize {
        self.judged
    }

    /// Takes `held`, the findings of the pod `key`, off the schedules.
    fn unschedule(&mut self, key: &Arc<ObjectKey>, held: &PodFindings) {
        if let Some(until) = held.until {
            self.due.remove(&(until, key.clone()));
        }
        if held.read_every_pod {
            self.reading_every_pod.remove(&**key);
        }
    }
}

/// The kept pods' findings, in the order of the model's unsettled pods.
struct KeptPods<'a>(&'a [(Arc<ObjectKey>, PodFindings)]);

impl KeptByPod for KeptPods<'_> {
    fn at(&self, i: usize) -> &[(usize, Arc<Finding>)] {
        &self.0[i].1.findings
    }
}

/// `findings` in the diagnosis's order ([`sort`](super::sort)): moved
/// into place by anomaly, then each anomaly's sorted on its own. The per-pod
/// families' findings arrive in the pods' key order, so most of those sorts
/// find their slice in order already: a pass, not a sort of the whole.
fn in_order(findings: Vec<Arc<Finding>>) -> Vec<Arc<Finding>> {
    let mut by_anomaly: Vec<Vec<Arc<Finding>>> = vec![Vec::new(); Anomaly::ALL.len()];
    for finding in findings {
        by_anomaly[finding.anomaly() as usize].push(finding);
    }
    let mut ordered = Vec::with_capacity(by_anomaly.iter().map(Vec::len).sum());
    for mut findings in by_anomaly {
        sort(&mut findings);
        ordered.append(&mut findings);
    }
    ordered
}

/// Each of a pod's findings judged again that reads as it did (same
/// family, same place, equal) becomes the one kept.
fn keep_alike(found: &mut [(usize, Arc<Finding>)], was: &[(usize, Arc<Finding>)]) {
    for ((family, finding), (was_family, was)) in found.iter_mut().zip(was) {
        if family == was_family && finding == was {
            *finding = was.clone();
        }
    }
}

/// Each finding of `findings` equal to one of `previous` (both in the
/// diagnosis's order) becomes that one: the two walked side by side by
/// their order's key.
fn share_alike(findings: &mut [Arc<Finding>], previous: &[Arc<Finding>]) {
    let mut previous = previous.iter().peekable();
    for finding in findings {
        // Most are the very ones kept: no names compared.
        if previous.next_if(|p| Arc::ptr_eq(p, finding)).is_some() {
            continue;
        }
        while previous
            .next_if(|p| p.order_key() < finding.order_key())
            .is_some()
        {}
        if let Some(was) = previous.next_if(|p| **p == *finding) {
            *finding = was.clone();
        }
    }
}

/// Whether `a` and `b` are the key of one pod (most often, the same key).
fn same(a: &Arc<ObjectKey>, b: &Arc<ObjectKey>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

/// Whether the pod `a` comes before the pod `b` in key order.
fn before(a: &Arc<ObjectKey>, b: &Arc<ObjectKey>) -> bool {
    !Arc::ptr_eq(a, b) && a.cmp(b) == Ordering::Less
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::diagnose_until;
    use crate::model::{Job, Object};

    fn at(time: &str) -> Time {
        time.parse().unwrap()
    }

    fn pod(json: &str) -> Object {
        Object::Pod(serde_json::from_str(json).unwrap())
    }

    /// Judges `cluster` piece by piece and whole, and says they agree.
    fn judged_alike(incremental: &mut Incremental, cluster: &mut Cluster, now: Time) -> Lasting {
        let changes = cluster.take_changes();
        let kept = incremental.diagnose(cluster, changes, now);
        assert_eq!(kept, diagnose_until(cluster, now, &Settings::default()));
        kept
    }

    fn causes(lasting: &Lasting) -> Vec<(String, &'static str)> {
        lasting
            .findings
            .iter()
            .map(|f| (f.name.to_string(), f.cause.as_str()))
            .collect()
    }

    /// An unbound pod naming a scheduler no bound pod names reads every
    /// pod: it is judged again when another pod starts naming it.
    #[test]
    fn a_pod_waiting_for_a_scheduler_follows_the_pods_that_name_it() {
        let mut cluster = Cluster::new();
        cluster.apply(pod(
            r#"{"metadata":{"name":"waits","namespace":"ns","creationTimestamp":"2024-06-01T00:00:00Z"},
                "spec":{"schedulerName":"custom"},"status":{"phase":"Pending"}}"#,
        ));
        let mut incremental = Incremental::new(Settings::default());
        let now = at("2024-06-01T01:00:00Z");
        let before = judged_alike(&mut incremental, &mut cluster, now);
        cluster.apply(pod(r#"{"metadata":{"name":"bound","namespace":"other"},
                "spec":{"schedulerName":"custom","nodeName":"n1"},"status":{"phase":"Pending"}}"#));
        let after = judged_alike(&mut incremental, &mut cluster, now);
        assert_ne!(causes(&before), causes(&after));
    }

    /// A pod not Ready under a Job is no finding once the Job is over: the
    /// Job's change judges its pods again.
    #[test]
    fn a_pod_is_judged_again_when_its_job_ends() {
        let job = |conditions: &str| {
            Object::Job(
                serde_json::from_str::<Job>(&format!(
                    r#"{{"metadata":{{"name":"j","namespace":"ns","uid":"uj"}},
                        "status":{{"active":1,"conditions":[{conditions}]}}}}"#
                ))
                .unwrap(),
            )
        };
        let mut cluster = Cluster::new();
        cluster.apply(job(""));
        cluster.apply(pod(
            r#"{"metadata":{"name":"j-1","namespace":"ns","uid":"up",
                  "ownerReferences":[{"kind":"Job","name":"j","uid":"uj","controller":true}]},
                "spec":{"nodeName":"n1"},
                "status":{"phase":"Running","startTime":"2024-06-01T00:00:00Z",
                  "conditions":[{"type":"Ready","status":"False","lastTransitionTime":"2024-06-01T00:00:00Z"}],
                  "containerStatuses":[{"name":"app","state":{"running":{}}}]}}"#,
        ));
        let mut incremental = Incremental::new(Settings::default());
        let now = at("2024-06-01T01:00:00Z");
        let before = judged_alike(&mut incremental, &mut cluster, now);
        assert!(causes(&before).iter().any(|(name, _)| name == "j-1"));
        cluster.apply(job(r#"{"type":"Complete","status":"True"}"#));
        let after = judged_alike(&mut incremental, &mut cluster, now);
        assert!(!causes(&after).iter().any(|(name, _)| name == "j-1"));
    }

    /// A controller's verdict reads what the other families found of it:
    /// an event about its ReplicaSet (no pod changes) that makes the API
    /// server's refusal a finding takes its verdict away.
    #[test]
    fn a_controller_is_judged_again_when_another_family_finds_it() {
        let mut cluster = Cluster::new();
        cluster.apply(Object::Deployment(
            serde_json::from_str(
                r#"{"metadata":{"name":"web","namespace":"ns","uid":"ud"},"spec":{"replicas":1},
                    "status":{"replicas":0,"unavailableReplicas":1,"conditions":[{"type":"Available",
                      "status":"False","reason":"MinimumReplicasUnavailable",
                      "lastTransitionTime":"2024-06-01T00:00:00Z"}]}}"#,
            )
            .unwrap(),
        ));
        cluster.apply(Object::ReplicaSet(
            serde_json::from_str(
                r#"{"metadata":{"name":"web-1","namespace":"ns","uid":"urs",
                      "creationTimestamp":"2024-06-01T00:00:00Z",
                      "ownerReferences":[{"kind":"Deployment","name":"web","uid":"ud","controller":true}]},
                    "spec":{"replicas":1},"status":{"replicas":0}}"#,
            )
            .unwrap(),
        ));
        // Events were listed (a first one would change everything).
        cluster.mark_listed(Kind::Event);
        let mut incremental = Incremental::new(Settings::default());
        let now = at("2024-06-01T01:00:00Z");
        let before = judged_alike(&mut incremental, &mut cluster, now);
        assert_eq!(
            causes(&before),
            [("web".to_string(), "replicas_unavailable")]
        );
        let event: crate::model::CoreEvent = serde_json::from_str(
            r#"{"metadata":{"name":"web-1.1","namespace":"ns"},"type":"Warning","reason":"FailedCreate",
                "message":"Error creating: pods \"web-1-x\" is forbidden: exceeded quota: compute, requested: cpu=1, used: cpu=4, limited: cpu=4",
                "involvedObject":{"kind":"ReplicaSet","name":"web-1","namespace":"ns","uid":"urs"},
                "lastTimestamp":"2024-06-01T00:50:00Z","source":{"component":"replicaset-controller"}}"#,
        )
        .unwrap();
        cluster.apply(Object::Event(event.into()));
        let after = judged_alike(&mut incremental, &mut cluster, now);
        assert_eq!(causes(&after), [("web-1".to_string(), "quota_exceeded")]);
    }

    /// A change judges again the pod it is about and no other; time judges
    /// again the pods whose findings it changes, when it does.
    #[test]
    fn only_the_pods_changed_or_due_are_judged_again() {
        let mut cluster = Cluster::new();
        let pending = |name: &str, created: &str| {
            pod(&format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"ns","uid":"u-{name}-{created}","creationTimestamp":"{created}"}},
                    "status":{{"phase":"Pending"}}}}"#
            ))
        };
        for i in 0..10 {
            cluster.apply(pending(&format!("p{i}"), "2024-06-01T00:00:00Z"));
        }
        cluster.apply(pending("young", "2024-06-01T00:59:00Z"));
        let mut incremental = Incremental::new(Settings::default());
        let now = at("2024-06-01T01:00:00Z");
        judged_alike(&mut incremental, &mut cluster, now);
        assert_eq!(incremental.judged, 11);
        cluster.apply(pod(
            r#"{"metadata":{"name":"p3","namespace":"ns","uid":"another","creationTimestamp":"2024-06-01T00:00:00Z"},
                "status":{"phase":"Pending"}}"#,
        ));
        judged_alike(&mut incremental, &mut cluster, now);
        assert_eq!(incremental.judged, 1);
        // "young" crosses --unscheduled-after at 01:04; the others' messages
        // print their age in minutes, which ticks over at 01:01.
        let lasting = judged_alike(&mut incremental, &mut cluster, at("2024-06-01T01:00:30Z"));
        assert_eq!(incremental.judged, 0);
        assert_eq!(lasting.until, Some(at("2024-06-01T01:01:00Z")));
        judged_alike(&mut incremental, &mut cluster, at("2024-06-01T01:04:00Z"));
        assert_eq!(incremental.judged, 11);
    }

    /// A pod or controller judged again that reads as it did hands out the
    /// finding kept (readers tell unchanged findings by address); one that
    /// reads differently, a new one.
    #[test]
    fn findings_judged_again_alike_are_the_ones_kept() {
        let deployment = |generation: u32| {
            Object::Deployment(
                serde_json::from_str(&format!(
                    r#"{{"metadata":{{"name":"web","namespace":"ns","uid":"ud","generation":{generation}}},
                        "spec":{{"replicas":1}},
                        "status":{{"replicas":0,"unavailableReplicas":1,"conditions":[{{"type":"Available",
                          "status":"False","reason":"MinimumReplicasUnavailable",
                          "lastTransitionTime":"2024-06-01T00:00:00Z"}}]}}}}"#
                ))
                .unwrap(),
            )
        };
        let pending = |uid: &str, created: &str| {
            pod(&format!(
                r#"{{"metadata":{{"name":"p","namespace":"ns","uid":"{uid}",
                      "creationTimestamp":"{created}"}},
                    "status":{{"phase":"Pending"}}}}"#
            ))
        };
        let mut cluster = Cluster::new();
        cluster.apply(deployment(1));
        cluster.apply(pending("a", "2024-06-01T00:00:00Z"));
        cluster.mark_listed(Kind::Event);
        let mut incremental = Incremental::new(Settings::default());
        let now = at("2024-06-01T01:00:00Z");
        let before = judged_alike(&mut incremental, &mut cluster, now);
        assert_eq!(before.findings.len(), 2, "{:?}", causes(&before));
        cluster.apply(deployment(2));
        cluster.apply(pending("b", "2024-06-01T00:00:00Z"));
        let after = judged_alike(&mut incremental, &mut cluster, now);
        assert_eq!(incremental.judged, 1);
        for (before, after) in before.findings.iter().zip(&after.findings) {
            assert!(Arc::ptr_eq(before, after), "{} judged again", after.name);
        }
        // The pod keeps it too, not a copy.
        let kept = &incremental.pods[0].1.findings[0].1;
        assert!(before.findings.iter().any(|f| Arc::ptr_eq(f, kept)));
        cluster.apply(pending("c", "2024-06-01T00:30:00Z"));
        let changed = judged_alike(&mut incremental, &mut cluster, now);
        let of = |lasting: &Lasting, kind: Kind| {
            lasting
                .findings
                .iter()
                .find(|f| f.kind == kind)
                .cloned()
                .unwrap()
        };
        assert!(!Arc::ptr_eq(
            &of(&after, Kind::Pod),
            &of(&changed, Kind::Pod)
        ));
        assert!(Arc::ptr_eq(
            &of(&after, Kind::Deployment),
            &of(&changed, Kind::Deployment)
        ));
    }
}
