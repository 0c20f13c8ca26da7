//! What explains what: the root causes behind findings, decided here and
//! nowhere else.
//!
//! A finding that something outside its own object explains names that
//! thing: a lost node, a node that cannot make pod sandboxes or is under
//! pressure, an image registry, an admission webhook, a scheduler, a
//! ResourceQuota, a namespace being deleted, a node's device driver, a
//! PersistentVolumeClaim that gets no volume, or a workload whose pod
//! template fails on every node. Each root cause collects
//! its victims: the pods, the workloads they belong to (by the names
//! kube-state-metrics gives them: a Deployment, not its ReplicaSet), the
//! namespaces. The landing page's "What explains them", the metrics (and so
//! the alerts and both inhibition files) read this one answer.
//!
//! A finding has at most one root cause (a pod pending because several nodes
//! are under pressure has one per node), in this order: its node is lost;
//! its own cause names the thing outside it (a sandbox, pressure, the
//! scheduler, a registry, a webhook, a quota, the namespace, a device, a
//! stuck claim); the
//! verdict of its workload, when that verdict has no root cause of its own.
//! A lost node's victims are every pod bound to it, findings or not: all of
//! them are down, and other packs' alerts about them will say so.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use foldhash::HashMap;

use crate::model::{Cluster, Kind, Name, ObjectKey, Time};

use super::families::is_lost_node;
use super::metric::Sample;
use super::vocabulary::vocabulary;
use super::{Anomaly, Cause, CreatingCause, Detail, Finding, PendingCause, RefusalCause, Runbook};

vocabulary! {
    /// What a root cause is (label `root_kind`).
    pub enum RootKind {
        Node = "node": "A node, by name: lost, failing pod sandboxes, or under pressure.",
        Registry = "registry": "An image registry, by host.",
        Webhook = "webhook": "An admission webhook, by name.",
        Scheduler = "scheduler": "A scheduler, by the schedulerName its pods name.",
        ResourceQuota = "resource_quota": "A ResourceQuota, as namespace/name.",
        Namespace = "namespace": "A namespace, by name.",
        DeviceDriver = "device_driver": "The DRA driver that prepares a node's devices, by the driver's name where the kubelet says it, else the node's.",
        Claim = "claim": "A PersistentVolumeClaim, as namespace/name.",
        Deployment = "deployment": "A Deployment, as namespace/name: its pod template.",
        StatefulSet = "statefulset": "A StatefulSet, as namespace/name: its pod template.",
        DaemonSet = "daemonset": "A DaemonSet, as namespace/name: its pod template.",
        Job = "job": "A Job, as namespace/name: its pod template.",
    }
}

vocabulary! {
    /// Why a root cause explains its victims (label `root_cause`), and the
    /// alert that speaks for it (a workload's pod template: its verdict's).
    pub enum RootCause {
        NodeLost = "node_lost" => NodeLost: "The node is NotReady or unreachable, or gone (not declared out of service): nothing runs or stops on it; every pod bound to it is a victim, and the workloads they belong to.",
        Cni = "cni" => PodSandboxFailingOnNode: "The node's network plugin (CNI) fails to set up pod sandboxes: its new pods stay in ContainerCreating.",
        SandboxImagePull = "sandbox_image_pull" => PodSandboxFailingOnNode: "The node cannot pull the sandbox (pause) image: its new pods stay in ContainerCreating.",
        SandboxOther = "sandbox_other" => PodSandboxFailingOnNode: "The node's runtime fails to create pod sandboxes for another reason.",
        NodeDiskPressure = "node_disk_pressure" => NodesUnderPressure: "The node reports disk pressure: pods that could only go there stay Pending.",
        NodeMemoryPressure = "node_memory_pressure" => NodesUnderPressure: "The node reports memory pressure: pods that could only go there stay Pending.",
        NodePidPressure = "node_pid_pressure" => NodesUnderPressure: "The node reports PID pressure: pods that could only go there stay Pending.",
        RegistryUnreachable = "registry_unreachable" => RegistryPullFailing: "The registry cannot be pulled from: it does not resolve, refuses or drops connections, times out, rate-limits, or its TLS is not trusted.",
        ImageUnavailable = "image_unavailable" => RegistryPullFailing: "The registry does not serve the images its victims name: they do not exist there, or it refuses the credentials.",
        WebhookUnreachable = "webhook_unreachable" => AdmissionWebhookUnreachable: "The API server cannot call the admission webhook, which fails closed: the pods it covers are refused.",
        NotScheduled = "not_scheduled" => SchedulerNotScheduling: "The scheduler never acts on the pods that name it: it is down or not working.",
        QuotaExceeded = "quota_exceeded" => PodCreateQuotaExceeded: "The ResourceQuota is used up: the API server refuses its namespace's new pods.",
        NamespaceTerminating = "namespace_terminating" => PodCreateRefused: "The namespace is being deleted: the API server refuses new pods in it.",
        DevicesNotPrepared = "devices_not_prepared" => PodContainerCreatingStuck: "The DRA driver does not prepare the pods' devices on their node.",
        ClaimStuck = "claim_stuck" => PersistentVolumeClaimStuck: "The PersistentVolumeClaim is stuck (its claim_stuck cause: a storage class missing, its provisioner failing or absent, no volume, Lost...): the pods Pending on it are its victims, and their workloads.",
        PodTemplate = "pod_template": "The workload's pods fail the same way wherever they run (their image, their configuration, their command): its verdict names their cause.",
    }
}

impl RootCause {
    /// What a root cause of this kind is (a pod template: its workload's
    /// kind, which varies).
    pub fn kind(self) -> Option<RootKind> {
        Some(match self {
            RootCause::NodeLost
            | RootCause::Cni
            | RootCause::SandboxImagePull
            | RootCause::SandboxOther
            | RootCause::NodeDiskPressure
            | RootCause::NodeMemoryPressure
            | RootCause::NodePidPressure => RootKind::Node,
            RootCause::RegistryUnreachable | RootCause::ImageUnavailable => RootKind::Registry,
            RootCause::WebhookUnreachable => RootKind::Webhook,
            RootCause::NotScheduled => RootKind::Scheduler,
            RootCause::QuotaExceeded => RootKind::ResourceQuota,
            RootCause::NamespaceTerminating => RootKind::Namespace,
            RootCause::DevicesNotPrepared => RootKind::DeviceDriver,
            RootCause::ClaimStuck => RootKind::Claim,
            RootCause::PodTemplate => return None,
        })
    }

    /// The alert that speaks for it, when it is always the same one.
    pub fn alert(self) -> Option<Runbook> {
        self.runbook()
    }
}

vocabulary! {
    /// What a victim is (label `victim_kind`): the kinds other packs' alerts
    /// are about, named by the labels kube-state-metrics gives them.
    pub enum VictimKind {
        Pod = "pod": "A pod (labels namespace, pod).",
        Deployment = "deployment": "A Deployment (labels namespace, deployment).",
        StatefulSet = "statefulset": "A StatefulSet (labels namespace, statefulset).",
        DaemonSet = "daemonset": "A DaemonSet (labels namespace, daemonset).",
        Job = "job": "A Job (labels namespace, job_name).",
        Namespace = "namespace": "A namespace (label namespace).",
    }
}

impl VictimKind {
    /// The labels that name a victim of this kind, as kube-state-metrics
    /// names the object (and so the kubernetes-mixin's alerts about it).
    pub fn labels(self) -> &'static [&'static str] {
        match self {
            VictimKind::Pod => &["namespace", "pod"],
            VictimKind::Deployment => &["namespace", "deployment"],
            VictimKind::StatefulSet => &["namespace", "statefulset"],
            VictimKind::DaemonSet => &["namespace", "daemonset"],
            VictimKind::Job => &["namespace", "job_name"],
            VictimKind::Namespace => &["namespace"],
        }
    }

    /// The victim kind of a workload kind as an owner reference names it.
    fn of_workload(kind: &str) -> Option<VictimKind> {
        match kind {
            "Deployment" => Some(VictimKind::Deployment),
            "StatefulSet" => Some(VictimKind::StatefulSet),
            "DaemonSet" => Some(VictimKind::DaemonSet),
            "Job" => Some(VictimKind::Job),
            _ => None,
        }
    }
}

/// One object a root cause explains; its names are the model's own copies
/// (a lost node's victims are every pod bound to it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Victim {
    pub kind: VictimKind,
    /// Empty for a namespace (its name is `name`).
    pub namespace: Name,
    pub name: Name,
}

impl Victim {
    fn new(kind: VictimKind, namespace: &Name, name: &Name) -> Self {
        Victim {
            kind,
            namespace: namespace.clone(),
            name: name.clone(),
        }
    }

    /// `namespace/name`, or the name of a namespace.
    pub fn path(&self) -> String {
        if self.namespace.is_empty() {
            self.name.to_string()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// The namespace it is in, or is.
    pub fn namespace(&self) -> &str {
        match self.kind {
            VictimKind::Namespace => &self.name,
            _ => &self.namespace,
        }
    }
}

/// Which root cause: what it is, its name, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RootKey {
    pub kind: RootKind,
    /// Empty when the cause names no one object (nodes under pressure that
    /// the scheduler did not name).
    pub name: String,
    pub cause: RootCause,
}

impl RootKey {
    fn new(kind: RootKind, name: impl Into<String>, cause: RootCause) -> Self {
        RootKey {
            kind,
            name: name.into(),
            cause,
        }
    }

    /// The root cause `cause` names, by the kind it declares.
    fn of(cause: RootCause, name: impl Into<String>) -> Option<Self> {
        Some(RootKey::new(cause.kind()?, name, cause))
    }

    /// Whether `victim` is the workload this root is the pod template of.
    fn is_workload(&self, victim: &Victim) -> bool {
        let kind = match self.kind {
            RootKind::Deployment => VictimKind::Deployment,
            RootKind::StatefulSet => VictimKind::StatefulSet,
            RootKind::DaemonSet => VictimKind::DaemonSet,
            RootKind::Job => VictimKind::Job,
            _ => return false,
        };
        victim.kind == kind && victim.path() == self.name
    }

    /// `kind/name` (`kind` alone without a name): how the page's `?root=`
    /// filter and links name it.
    pub fn id(&self) -> String {
        if self.name.is_empty() {
            self.kind.as_str().to_string()
        } else {
            format!("{}/{}", self.kind, self.name)
        }
    }

    /// Whether `id` (as [`RootKey::id`] writes it, or a kind alone) names it.
    pub fn is(&self, id: &str) -> bool {
        match id.split_once('/') {
            Some((kind, name)) => kind == self.kind.as_str() && name == self.name,
            None => id == self.kind.as_str(),
        }
    }
}

/// A root cause and what it explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub key: RootKey,
    /// The earliest of its findings' `since` (a lost node's: when its Ready
    /// condition last changed, if earlier).
    pub since: Option<Time>,
    /// The alert that speaks for it and whose runbook says what to do.
    pub runbook: Runbook,
    /// The findings it explains, in the diagnosis's order.
    pub findings: Vec<Arc<Finding>>,
    /// Every object it explains, once each, sorted.
    pub victims: Vec<Victim>,
}

impl Root {
    /// Its victims of one kind.
    pub fn victims_of(&self, kind: VictimKind) -> impl Iterator<Item = &Victim> {
        self.victims.iter().filter(move |v| v.kind == kind)
    }

    /// How many victims of each kind, in [`VictimKind::ALL`]'s order (kinds
    /// with none left out).
    pub fn counts(&self) -> Vec<(VictimKind, usize)> {
        VictimKind::ALL
            .iter()
            .map(|k| (*k, self.victims_of(*k).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}

/// Every root cause of a set of findings, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootCauses {
    pub roots: Vec<Root>,
    /// Each finding's root cause (its index in `roots`), by the finding's
    /// address: the findings are shared, and this answer is kept with them.
    by_finding: HashMap<usize, usize>,
}

/// A finding's address, as [`RootCauses`] knows it.
fn address(f: &Finding) -> usize {
    std::ptr::from_ref(f) as usize
}

impl RootCauses {
    /// The root causes of `findings`, the diagnosis of `cluster`.
    pub fn of(cluster: &Cluster, findings: &[Arc<Finding>]) -> RootCauses {
        let mut found = Found::new(cluster, findings);
        // Verdicts first: a pod's finding falls to its workload's verdict
        // only when nothing outside explains it.
        let mut templates: HashMap<(Name, Name, Name), RootKey> = HashMap::default();
        for f in findings {
            if let Some(key) = found.outside(f) {
                found.explain(f, key);
            } else if let Some(key) = template_root(f) {
                if let Some(owner) = &f.owner {
                    let namespace = f.namespace.clone().unwrap_or_default();
                    templates.insert((namespace, owner.kind.clone(), owner.name.clone()), key);
                }
            }
        }
        // The verdicts themselves, then the pods they stand for.
        for f in findings.iter().filter(|f| f.kind != Kind::Pod) {
            if found.has(f) {
                continue;
            }
            if let Some(key) = template_root(f) {
                found.explain_as_root(f, key);
            }
        }
        for f in findings.iter().filter(|f| f.kind == Kind::Pod) {
            let Some(owner) = f.owner.as_ref().filter(|_| !found.has(f)) else {
                continue;
            };
            let namespace = f.namespace.clone().unwrap_or_default();
            if let Some(key) = templates.get(&(namespace, owner.kind.clone(), owner.name.clone())) {
                found.explain(f, key.clone());
            }
        }
        found.add_lost_nodes_pods();
        found.finish()
    }

    /// The root cause of `finding` (one of those these were found of).
    pub fn of_finding(&self, finding: &Finding) -> Option<&Root> {
        self.by_finding
            .get(&address(finding))
            .and_then(|i| self.roots.get(*i))
    }

    /// The root causes `id` names (see [`RootKey::id`]).
    pub fn named(&self, id: &str) -> Vec<&Root> {
        self.roots.iter().filter(|r| r.key.is(id)).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The part of them one viewer may see: the findings `sees`, the victims
    /// in the namespaces `sees_namespace` (a namespace's own name for a
    /// namespace); a root cause none of whose findings is seen is left out,
    /// so that no name or count is told of what the viewer may not see.
    pub fn restricted(
        &self,
        sees: impl Fn(&Finding) -> bool,
        sees_namespace: impl Fn(&str) -> bool,
    ) -> RootCauses {
        let mut kept: HashMap<usize, usize> = HashMap::default();
        let mut roots = Vec::new();
        for (i, root) in self.roots.iter().enumerate() {
            let findings: Vec<Arc<Finding>> =
                root.findings.iter().filter(|f| sees(f)).cloned().collect();
            if findings.is_empty() {
                continue;
            }
            kept.insert(i, roots.len());
            roots.push(Root {
                key: root.key.clone(),
                since: root.since,
                runbook: root.runbook,
                victims: root
                    .victims
                    .iter()
                    .filter(|v| sees_namespace(v.namespace()))
                    .cloned()
                    .collect(),
                findings,
            });
        }
        let by_finding = roots
            .iter()
            .flat_map(|r| &r.findings)
            .filter_map(|f| {
                let old = self.by_finding.get(&address(f))?;
                Some((address(f), *kept.get(old)?))
            })
            .collect();
        RootCauses { roots, by_finding }
    }
}

/// A verdict's own root: its workload's pod template, when its pods say why
/// (not a controller that speaks alone: a deadline, a backoff limit).
fn template_root(f: &Finding) -> Option<RootKey> {
    let Detail::Verdict(verdict) = &f.detail else {
        return None;
    };
    if verdict.pod_cause.is_none() || verdict.pods == 0 || !f.cause.alerted() {
        return None;
    }
    let kind = match f.kind {
        Kind::Deployment => RootKind::Deployment,
        Kind::StatefulSet => RootKind::StatefulSet,
        Kind::DaemonSet => RootKind::DaemonSet,
        Kind::Job => RootKind::Job,
        _ => return None,
    };
    let name = format!("{}/{}", f.namespace.as_deref().unwrap_or_default(), f.name);
    Some(RootKey::new(kind, name, RootCause::PodTemplate))
}

/// The root causes being found.
struct Found<'a> {
    cluster: &'a Cluster,
    /// Lost nodes by name, with when they became so (`None` for a node that
    /// is gone), read once each.
    lost: HashMap<String, Option<Option<Time>>>,
    /// A ReplicaSet's Deployment, read once each.
    deployments: HashMap<(Name, Name), Option<Name>>,
    /// The claims with a finding of their own, by namespace and name.
    stuck_claims: BTreeSet<(Name, Name)>,
    roots: BTreeMap<RootKey, Building>,
    by_finding: HashMap<usize, RootKey>,
}

#[derive(Default)]
struct Building {
    since: Option<Time>,
    runbook: Option<Runbook>,
    findings: Vec<Arc<Finding>>,
    victims: BTreeSet<Victim>,
}

impl Building {
    fn since(&mut self, t: Option<Time>) {
        self.since = match (self.since, t) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

impl<'a> Found<'a> {
    fn new(cluster: &'a Cluster, findings: &[Arc<Finding>]) -> Self {
        Found {
            cluster,
            lost: HashMap::default(),
            deployments: HashMap::default(),
            stuck_claims: findings
                .iter()
                .filter(|f| f.kind == Kind::PersistentVolumeClaim)
                .map(|f| (f.namespace.clone().unwrap_or_default(), f.name.clone()))
                .collect(),
            roots: BTreeMap::new(),
            by_finding: HashMap::default(),
        }
    }

    fn has(&self, f: &Finding) -> bool {
        self.by_finding.contains_key(&address(f))
    }

    /// Whether node `name` is lost: `Some(when)` (when its Ready condition
    /// changed, if known), `None` if it is not.
    fn lost_since(&mut self, name: &str) -> Option<Option<Time>> {
        if name.is_empty() {
            return None;
        }
        if let Some(known) = self.lost.get(name) {
            return *known;
        }
        let state = is_lost_node(self.cluster, name).then(|| {
            self.cluster
                .node(name)
                .and_then(|n| n.status.ready.as_ref())
                .and_then(|c| c.last_transition_time)
        });
        self.lost.insert(name.to_string(), state);
        state
    }

    /// The root cause outside `f`'s own workload that explains it.
    fn outside(&mut self, f: &Finding) -> Option<RootKey> {
        if let Some(node) = f.node.as_deref() {
            // A Terminating pod's cause already says its node is lost; any
            // other finding about a pod (or naming one) on a lost node is
            // explained by it too.
            if self.lost_since(node).is_some() {
                return RootKey::of(RootCause::NodeLost, node);
            }
        }
        let node = f.node.as_deref().unwrap_or_default();
        match (f.cause, &f.detail) {
            // A stuck claim is its own root; a pod Pending on it, its victim.
            (Cause::ClaimStuck(_), _) => RootKey::of(
                RootCause::ClaimStuck,
                format!("{}/{}", f.namespace.as_deref().unwrap_or_default(), f.name),
            ),
            (Cause::PodPending(PendingCause::ClaimStuck), _) => {
                RootKey::of(RootCause::ClaimStuck, self.stuck_claim_of(f)?)
            }
            (Cause::ContainerCreating(c), _) if f.cause.tags().contains(&"sandbox") => {
                RootKey::of(sandbox_root(c.as_str())?, node)
            }
            (Cause::ContainerCreating(CreatingCause::DevicesNotPrepared), _) => RootKey::of(
                RootCause::DevicesNotPrepared,
                driver_named(&f.message).unwrap_or(node),
            ),
            (Cause::PodPending(PendingCause::NotScheduled), _) => {
                RootKey::of(RootCause::NotScheduled, self.scheduler_of(f))
            }
            // One key per pressured node: the first here, the others added
            // by `explain`.
            (Cause::PodPending(p), _) => RootKey::of(
                pressure_root(p)?,
                pressured_nodes(f).first().cloned().unwrap_or_default(),
            ),
            (Cause::ImagePull(_), Detail::ImagePull(pull)) => {
                RootKey::of(registry_root(f.cause)?, pull.registry.as_str())
            }
            (_, Detail::Verdict(verdict)) => {
                let (Some(pod_cause), Some(registry)) = (verdict.pod_cause, &verdict.registry)
                else {
                    return None;
                };
                RootKey::of(
                    registry_root(Cause::from_labels(Anomaly::ImagePull.as_str(), pod_cause)?)?,
                    registry.as_str(),
                )
            }
            (Cause::PodCreateRefused(r), Detail::Refused(refused)) => {
                let (webhook, quota) = (&refused.webhook, &refused.quota);
                let namespace = f.namespace.as_deref().unwrap_or_default();
                match r {
                    RefusalCause::WebhookUnreachable => RootKey::of(
                        RootCause::WebhookUnreachable,
                        webhook.as_deref().unwrap_or_default(),
                    ),
                    RefusalCause::QuotaExceeded => RootKey::of(
                        RootCause::QuotaExceeded,
                        format!("{namespace}/{}", quota.as_deref().unwrap_or_default()),
                    ),
                    RefusalCause::NamespaceTerminating => {
                        RootKey::of(RootCause::NamespaceTerminating, namespace)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `namespace/name` of the first claim of a pending pod that has a
    /// finding of its own.
    fn stuck_claim_of(&self, f: &Finding) -> Option<String> {
        let namespace = f.namespace.clone().unwrap_or_default();
        let pod = self
            .cluster
            .pod(&ObjectKey::new(namespace.clone(), f.name.clone()))?;
        pod.claim_names()
            .find(|c| {
                self.stuck_claims
                    .contains(&(namespace.clone(), Name::from(c.as_str())))
            })
            .map(|c| format!("{namespace}/{c}"))
    }

    /// The scheduler a pending pod names.
    fn scheduler_of(&self, f: &Finding) -> String {
        let key = ObjectKey::new(f.namespace.clone().unwrap_or_default(), f.name.clone());
        match self.cluster.pod(&key) {
            Some(pod) if !pod.spec.scheduler_name.is_empty() => pod.spec.scheduler_name.to_string(),
            _ => DEFAULT_SCHEDULER.to_string(),
        }
    }

    /// `f` is one of `key`'s findings, and its objects its victims.
    fn explain(&mut self, f: &Arc<Finding>, key: RootKey) {
        // A pod pending on pressure names every pressured node.
        let mut keys = vec![key.clone()];
        if key.kind == RootKind::Node && pressure_cause(key.cause) {
            keys.extend(
                pressured_nodes(f)
                    .iter()
                    .skip(1)
                    .filter_map(|n| RootKey::of(key.cause, n.as_str())),
            );
        }
        let victims = self.victims_of(f);
        for key in keys {
            if key.kind == RootKind::Node && key.cause == RootCause::NodeLost {
                let since = self.lost_since(&key.name).flatten();
                self.root(&key, runbook_of(&key, f)).since(since);
            }
            let root = self.root(&key, runbook_of(&key, f));
            root.since(f.since);
            root.findings.push(f.clone());
            // A workload is not its own template's victim.
            root.victims
                .extend(victims.iter().filter(|v| !key.is_workload(v)).cloned());
        }
        self.by_finding.insert(address(f), key);
    }

    /// `f` is the root itself (a workload's verdict): it is its own finding,
    /// with no victim of its own.
    fn explain_as_root(&mut self, f: &Arc<Finding>, key: RootKey) {
        let root = self.root(&key, f.runbook());
        root.since(f.since);
        root.findings.push(f.clone());
        self.by_finding.insert(address(f), key);
    }

    fn root(&mut self, key: &RootKey, runbook: Runbook) -> &mut Building {
        let root = self.roots.entry(key.clone()).or_default();
        root.runbook.get_or_insert(runbook);
        root
    }

    /// The objects a finding is about: the pod and its workload, a
    /// workload, a namespace.
    fn victims_of(&mut self, f: &Finding) -> Vec<Victim> {
        let namespace = f.namespace.clone().unwrap_or_default();
        let namespace = &namespace;
        match f.kind {
            Kind::Pod => {
                let mut victims = vec![Victim::new(VictimKind::Pod, namespace, &f.name)];
                if let Some(owner) = &f.owner {
                    victims.extend(self.workload(namespace, &owner.kind, &owner.name));
                }
                victims
            }
            Kind::ReplicaSet => {
                let deployment = match &f.detail {
                    Detail::Refused(refused) if refused.deployment.is_some() => {
                        refused.deployment.as_deref().map(Name::from)
                    }
                    _ => self.deployment_of(namespace, &f.name),
                };
                deployment
                    .map(|d| Victim::new(VictimKind::Deployment, namespace, &d))
                    .into_iter()
                    .collect()
            }
            Kind::Deployment | Kind::StatefulSet | Kind::DaemonSet | Kind::Job => {
                VictimKind::of_workload(f.kind.as_str())
                    .map(|k| Victim::new(k, namespace, &f.name))
                    .into_iter()
                    .collect()
            }
            Kind::Namespace => vec![Victim::new(
                VictimKind::Namespace,
                &Name::default(),
                &f.name,
            )],
            _ => Vec::new(),
        }
    }

    /// The workload victim of a pod's controller (a ReplicaSet's Deployment).
    fn workload(&mut self, namespace: &Name, kind: &str, name: &Name) -> Option<Victim> {
        if kind == "ReplicaSet" {
            let deployment = self.deployment_of(namespace, name)?;
            return Some(Victim::new(VictimKind::Deployment, namespace, &deployment));
        }
        VictimKind::of_workload(kind).map(|k| Victim::new(k, namespace, name))
    }

    fn deployment_of(&mut self, namespace: &Name, replica_set: &Name) -> Option<Name> {
        let key = (namespace.clone(), replica_set.clone());
        if let Some(known) = self.deployments.get(&key) {
            return known.clone();
        }
        let deployment = self
            .cluster
            .replica_set(&ObjectKey::new(namespace.clone(), replica_set.clone()))
            .and_then(|rs| rs.metadata.controller())
            .filter(|c| c.kind == "Deployment")
            .map(|c| c.name.clone());
        self.deployments.insert(key, deployment.clone());
        deployment
    }

    /// Every pod bound to a lost node is its victim, with its workload,
    /// whether or not it has a finding yet.
    fn add_lost_nodes_pods(&mut self) {
        let lost: Vec<String> = self
            .roots
            .keys()
            .filter(|k| k.kind == RootKind::Node && k.cause == RootCause::NodeLost)
            .map(|k| k.name.clone())
            .collect();
        let cluster = self.cluster;
        for node in lost {
            let mut victims = Vec::new();
            for pod in cluster
                .pods_on_node(&node)
                .filter(|p| !p.status.phase.is_terminal())
            {
                let m = &pod.metadata;
                victims.push(Victim::new(VictimKind::Pod, &m.namespace, &m.name));
                if let Some(owner) = m.controller() {
                    victims.extend(self.workload(&m.namespace, &owner.kind, &owner.name));
                }
            }
            let Some(key) = RootKey::of(RootCause::NodeLost, node) else {
                continue;
            };
            if let Some(root) = self.roots.get_mut(&key) {
                root.victims.extend(victims);
            }
        }
    }

    fn finish(self) -> RootCauses {
        let mut roots: Vec<Root> = self
            .roots
            .into_iter()
            .map(|(key, b)| Root {
                since: b.since,
                runbook: b.runbook.unwrap_or(Runbook::PodStuckUnexplained),
                findings: b.findings,
                victims: b.victims.into_iter().collect(),
                key,
            })
            .collect();
        // Oldest first; a root of unknown age last.
        roots.sort_by(|a, b| {
            (a.since.is_none(), a.since, &a.key).cmp(&(b.since.is_none(), b.since, &b.key))
        });
        let index: HashMap<&RootKey, usize> =
            roots.iter().enumerate().map(|(i, r)| (&r.key, i)).collect();
        let by_finding = self
            .by_finding
            .into_iter()
            .filter_map(|(f, key)| index.get(&key).map(|i| (f, *i)))
            .collect();
        RootCauses { roots, by_finding }
    }
}

/// The scheduler a pod with no `schedulerName` gets.
const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// The alert that speaks for a root: its cause's, else (a pod template)
/// the alert of the verdict that named it.
fn runbook_of(key: &RootKey, f: &Finding) -> Runbook {
    key.cause.alert().unwrap_or(f.runbook())
}

/// A registry's part in a pull that fails: its transport, or the images it
/// serves (a node's own image store is no registry's).
fn registry_root(cause: Cause) -> Option<RootCause> {
    let tags = cause.tags();
    if tags.contains(&"registry_transport") {
        Some(RootCause::RegistryUnreachable)
    } else if tags.contains(&"registry_content") {
        Some(RootCause::ImageUnavailable)
    } else {
        None
    }
}

fn sandbox_root(cause: &str) -> Option<RootCause> {
    match cause {
        "cni" => Some(RootCause::Cni),
        "sandbox_image_pull" => Some(RootCause::SandboxImagePull),
        "sandbox_other" => Some(RootCause::SandboxOther),
        _ => None,
    }
}

fn pressure_root(cause: PendingCause) -> Option<RootCause> {
    match cause {
        PendingCause::NodeDiskPressure => Some(RootCause::NodeDiskPressure),
        PendingCause::NodeMemoryPressure => Some(RootCause::NodeMemoryPressure),
        PendingCause::NodePidPressure => Some(RootCause::NodePidPressure),
        _ => None,
    }
}

fn pressure_cause(cause: RootCause) -> bool {
    matches!(
        cause,
        RootCause::NodeDiskPressure | RootCause::NodeMemoryPressure | RootCause::NodePidPressure
    )
}

fn pressured_nodes(f: &Finding) -> &[String] {
    match &f.detail {
        Detail::Pending(pending) => &pending.pressured_nodes,
        _ => &[],
    }
}

/// The DRA driver a kubelet's FailedPrepareDynamicResources message names
/// (`... driver gpu.example.com ...`, `DRA driver gpu.example.com is not
/// registered`).
fn driver_named(message: &str) -> Option<&str> {
    let mut words = message.split_whitespace();
    while let Some(word) = words.next() {
        if word.eq_ignore_ascii_case("driver") {
            let name = words.next()?.trim_matches(|c: char| {
                !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_')
            });
            if name.contains('.') {
                return Some(name);
            }
        }
    }
    None
}

/// A metric family generated from the root causes: name, help, label keys,
/// and each root's samples (their values in the order of `labels`; an empty
/// value is a label the series does not carry).
pub struct RootFamily {
    pub name: &'static str,
    pub help: &'static str,
    pub labels: &'static [&'static str],
    pub samples: fn(&Root) -> Vec<Sample>,
    /// Whether its per-victim series give way, above the series ceiling, to
    /// one series per namespace for each root (`pod` left out).
    pub folds: bool,
    /// An example query for `docs/metrics.md`.
    pub example: &'static str,
}

/// The labels naming a root cause, after a family's own.
const ROOT_LABELS: [&str; 3] = ["root_kind", "root_name", "root_cause"];

fn root_values(root: &Root) -> [String; 3] {
    [
        root.key.kind.to_string(),
        root.key.name.clone(),
        root.key.cause.to_string(),
    ]
}

/// The labels of a victim's series: its kind, the labels that name it (as
/// kube-state-metrics names the object), then its root cause's.
pub const VICTIM_LABELS: &[&str] = &[
    "victim_kind",
    "namespace",
    "pod",
    "deployment",
    "statefulset",
    "daemonset",
    "job_name",
    "root_kind",
    "root_name",
    "root_cause",
];

/// A victim's label values, in [`VICTIM_LABELS`]' order.
pub fn victim_values(root: &Root, victim: &Victim) -> Vec<String> {
    let mut values = vec![String::new(); VICTIM_LABELS.len()];
    values[0] = victim.kind.to_string();
    values[1] = victim.namespace().to_string();
    let own = match victim.kind {
        VictimKind::Pod => Some(2),
        VictimKind::Deployment => Some(3),
        VictimKind::StatefulSet => Some(4),
        VictimKind::DaemonSet => Some(5),
        VictimKind::Job => Some(6),
        VictimKind::Namespace => None,
    };
    if let Some(i) = own {
        values[i] = victim.name.to_string();
    }
    values[7..].clone_from_slice(&root_values(root));
    values
}

pub const ROOT_FAMILIES: &[RootFamily] = &[
    RootFamily {
        name: "kube_lifecycle_root_cause_since_timestamp_seconds",
        help: "Unix time a root cause began explaining findings (a lost node: when its Ready condition changed), by what it is (root_kind), its name (root_name) and why (root_cause).",
        labels: &ROOT_LABELS,
        samples: |root| {
            root.since
                .map(|t| Sample {
                    labels: root_values(root).to_vec(),
                    value: crate::model::unix_seconds(t),
                })
                .into_iter()
                .collect()
        },
        folds: false,
        example: r#"time() - kube_lifecycle_root_cause_since_timestamp_seconds{root_kind="node"}"#,
    },
    RootFamily {
        name: "kube_lifecycle_root_cause_victims",
        help: "Objects a root cause explains, by kind (victim_kind: pod, deployment, statefulset, daemonset, job, namespace).",
        labels: &["root_kind", "root_name", "root_cause", "victim_kind"],
        samples: |root| {
            root.counts()
                .into_iter()
                .map(|(kind, n)| {
                    let mut labels = root_values(root).to_vec();
                    labels.push(kind.to_string());
                    Sample {
                        labels,
                        value: n as f64,
                    }
                })
                .collect()
        },
        folds: false,
        example: r#"sum by (root_kind, root_name, root_cause) (kube_lifecycle_root_cause_victims)"#,
    },
    RootFamily {
        name: "kube_lifecycle_root_cause_victim_info",
        help: "1 for each object a root cause explains, named by the labels kube-state-metrics gives it (namespace with pod, deployment, statefulset, daemonset or job_name), with its root cause: what the alert KubeLifecycleExplainedByRootCause folds other packs' alerts about it by. Above --max-series-per-family, a root's pods are folded by namespace (no pod label).",
        labels: VICTIM_LABELS,
        samples: |root| {
            root.victims
                .iter()
                .map(|v| Sample {
                    labels: victim_values(root, v),
                    value: 1.0,
                })
                .collect()
        },
        folds: true,
        example: r#"count by (root_kind, root_name) (kube_lifecycle_root_cause_victim_info{victim_kind="pod"})"#,
    },
];
