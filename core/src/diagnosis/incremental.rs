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

use std::collections::{BTreeSet, HashSet};

use foldhash::HashMap;

use super::{FAMILIES, Finding, Input, Judge, Lasting, Settings, Verdicts, sort};
use crate::model::{Changes, Cluster, Kind, ObjectKey, Pod, Time};

/// One pod's findings from the families that judge each pod.
struct PodFindings {
    /// Each with the index of its family in [`FAMILIES`].
    findings: Vec<(usize, Finding)>,
    /// When, with the model unchanged, they could read differently.
    until: Option<Time>,
    /// They read every pod: any pod's change may change them.
    read_every_pod: bool,
}

/// The verdict on one controller.
struct Verdict {
    finding: Option<Finding>,
    until: Option<Time>,
}

type ControllerKey = (Kind, ObjectKey);

/// The findings of a changing model, kept between judgements.
pub struct Incremental {
    settings: Settings,
    pods: HashMap<ObjectKey, PodFindings>,
    /// The pods kept, by the moment their findings stop holding.
    due: BTreeSet<(Time, ObjectKey)>,
    /// The pods whose findings read every pod: judged every time.
    reading_every_pod: HashSet<ObjectKey>,
    controllers: KeptVerdicts,
    /// The findings of the families that judge the whole cluster, as the
    /// controllers' family last read them.
    whole_before_controllers: Vec<Finding>,
    /// The moment of the last judgement.
    at: Option<Time>,
    /// How many pods the last judgement judged again.
    judged: usize,
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
        self.held.insert(key, Verdict { finding, until });
    }
}

/// Whether `finding` comes from a family that judges each pod.
fn of_each_pod(finding: &Finding) -> bool {
    FAMILIES
        .iter()
        .any(|f| matches!(f.judge, Judge::EachPod(_)) && f.anomalies.contains(&finding.anomaly()))
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
            pods: HashMap::default(),
            due: BTreeSet::new(),
            reading_every_pod: HashSet::new(),
            controllers: KeptVerdicts::default(),
            whole_before_controllers: Vec::new(),
            at: None,
            judged: 0,
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
        let mut before = HashMap::default();
        if everything {
            self.pods.clear();
            self.due.clear();
            self.reading_every_pod.clear();
            self.controllers.clear();
        } else {
            let mut stale = changes.pods;
            stale.extend(self.reading_every_pod.iter().cloned());
            while self.due.first().is_some_and(|(until, _)| *until <= now) {
                stale.extend(self.due.pop_first().map(|(_, key)| key));
            }
            for key in stale {
                if let Some(held) = self.forget(&key) {
                    before.insert(key, held);
                }
            }
        }
        let mut kept: Vec<Vec<Finding>> = vec![Vec::new(); FAMILIES.len()];
        for (key, pod) in cluster.unsettled_pods_keyed() {
            let held = match self.pods.get(key) {
                Some(held) => held,
                None => {
                    let was = before.remove(key);
                    let held = self.judge(&input, key.clone(), pod);
                    // A pod whose findings changed changes its controller's.
                    if was.is_none_or(|was| was.findings != held.findings) {
                        if let Some(c) = pod.metadata.controller() {
                            let key = ObjectKey::new(key.namespace.clone(), c.name.as_str());
                            touched.insert((c.kind.clone(), key));
                        }
                    }
                    held
                }
            };
            for (family, finding) in &held.findings {
                kept[*family].push(finding.clone());
            }
        }
        let mut findings = Vec::new();
        for (family, kept) in FAMILIES.iter().zip(kept) {
            match family.judge {
                Judge::EachPod(_) => findings.extend(kept),
                Judge::EachController(judge) => {
                    self.stale_controllers(cluster, &findings, everything, touched.drain(), now);
                    let beyond = judge(&input, &findings, &mut self.controllers);
                    findings.extend(
                        self.controllers
                            .held
                            .values()
                            .filter_map(|v| v.finding.clone()),
                    );
                    findings.extend(beyond);
                }
                Judge::Whole(judge) => judge(&input, &mut findings),
            }
        }
        sort(&mut findings);
        let until = [
            input.now.next_change(),
            self.due.first().map(|(t, _)| *t),
            self.controllers.due.first().map(|(t, _)| *t),
        ]
        .into_iter()
        .flatten()
        .min();
        Lasting { findings, until }
    }

    /// Forgets the verdicts on controllers that may read differently now:
    /// those `touched` names, those whose time has come, and all of them when
    /// the findings of the whole-cluster families before them changed.
    fn stale_controllers(
        &mut self,
        cluster: &Cluster,
        findings: &[Finding],
        everything: bool,
        touched: impl Iterator<Item = (String, ObjectKey)>,
        now: Time,
    ) {
        let whole: Vec<Finding> = findings
            .iter()
            .filter(|f| !of_each_pod(f))
            .cloned()
            .collect();
        if everything || whole != self.whole_before_controllers {
            self.controllers.clear();
        } else {
            self.controllers.forget_due(now);
            for (kind, key) in touched {
                if let Some(key) = controller_judged(cluster, &kind, key) {
                    self.controllers.forget(&key);
                }
            }
        }
        self.whole_before_controllers = whole;
    }

    /// Judges `pod` by each family that judges pods, and keeps what it finds.
    fn judge(&mut self, input: &Input<'_>, key: ObjectKey, pod: &Pod) -> &PodFindings {
        self.judged += 1;
        let (findings, until, read_every_pod) = input.apart(|| {
            let mut findings = Vec::new();
            let mut out = Vec::new();
            for (index, family) in FAMILIES.iter().enumerate() {
                if let Judge::EachPod(judge) = family.judge {
                    judge(input, pod, &mut out);
                    findings.extend(out.drain(..).map(|f| (index, f)));
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
        self.pods.entry(key).or_insert(PodFindings {
            findings,
            until,
            read_every_pod,
        })
    }

    /// How many pods the last judgement judged again (the rest it kept).
    pub fn pods_judged(&self) -> usize {
        self.judged
    }

    fn forget(&mut self, key: &ObjectKey) -> Option<PodFindings> {
        let held = self.pods.remove(key)?;
        if let Some(until) = held.until {
            self.due.remove(&(until, key.clone()));
        }
        if held.read_every_pod {
            self.reading_every_pod.remove(key);
        }
        Some(held)
    }
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
            .map(|f| (f.name.clone(), f.cause.as_str()))
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
}
