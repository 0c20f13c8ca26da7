//! The scheduler's PodScheduled=False message (or FailedScheduling event), and
//! its wordings across versions (issue 18).

use super::*;

// ---------------------------------------------------------------------------
// The scheduler's PodScheduled=False message (or FailedScheduling event).
// ---------------------------------------------------------------------------

/// `(source, message, reason → nodes, nodes_total)`.
type SchedulerRow = (
    &'static str,
    &'static str,
    &'static [(PendingCause, u32)],
    Option<u32>,
);

#[test]
fn scheduler_messages() {
    use PendingCause::*;
    let rows: &[SchedulerRow] = &[
        (
            "https://github.com/kubernetes/kubernetes/pull/121007",
            "0/4 nodes are available: 1 Insufficient cpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.",
            &[(InsufficientCpu, 1)],
            Some(4),
        ),
        (
            "https://github.com/harvester/harvester/issues/3136",
            "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
            &[(InsufficientMemory, 1)],
            Some(1),
        ),
        (
            "https://github.com/NVIDIA/k8s-device-plugin/issues/430",
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod..",
            &[(InsufficientOther, 1)],
            Some(1),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/96083",
            "0/3 nodes are available: 3 Insufficient ephemeral-storage.",
            &[(InsufficientEphemeralStorage, 3)],
            Some(3),
        ),
        (
            "https://github.com/openshift/release/pull/4216",
            "0/18 nodes are available: 18 Insufficient ephemeral-storage, 3 node(s) didn't match node selector.",
            &[(InsufficientEphemeralStorage, 18), (NodeAffinity, 3)],
            Some(18),
        ),
        (
            "https://github.com/hwameistor/hwameistor/issues/1227",
            "0/3 nodes are available: 1 node(s) were unschedulable, 2 Too many pods. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
            &[(NodeUnschedulable, 1), (InsufficientPods, 2)],
            Some(3),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/107194",
            "0/5 nodes are available: 2 node(s) were unschedulable, 3 Insufficient pods.",
            &[(NodeUnschedulable, 2), (InsufficientPods, 3)],
            Some(5),
        ),
        (
            "https://github.com/mysticaltech/terraform-hcloud-kube-hetzner/issues/1604",
            "0/14 nodes are available: 11 node(s) didn't match Pod's node affinity/selector, 3 node(s) were unschedulable. preemption: 0/14 nodes are available: 14 Preemption is not helpful for scheduling.",
            &[(NodeAffinity, 11), (NodeUnschedulable, 3)],
            Some(14),
        ),
        // joined: the poster's terminal wrapped this event over two lines
        (
            "https://github.com/kiwix/operations/issues/245",
            "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.",
            &[(InsufficientCpu, 1), (NodeAffinity, 4)],
            Some(5),
        ),
        // taints, new wording
        (
            "https://github.com/kubernetes/kubernetes/issues/116133",
            "0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling..",
            &[(Taint, 1)],
            Some(1),
        ),
        // taints, old wording (a comma inside the reason)
        (
            "https://github.com/kubeedge/website/pull/272",
            "0/1 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/control-plane: }, that the pod didn't tolerate.",
            &[(Taint, 1)],
            Some(1),
        ),
        (
            "https://github.com/petuum/adaptdl/issues/121",
            "0/1 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate.",
            &[(Taint, 1)],
            Some(1),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/85625",
            "0/1 nodes are available: 1 node(s) had taints that the pod didn't tolerate.",
            &[(Taint, 1)],
            Some(1),
        ),
        // a custom taint named "unschedulable" is a taint, not a cordon
        (
            "https://github.com/red-hat-storage/ocs-operator/pull/4163",
            "0/6 nodes are available: 1 node(s) had untolerated taint {unschedulable: true}, 2 node(s) didn't match pod topology spread constraints, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }. preemption: 0/6 nodes are available: 2 node(s) didn't match pod topology spread constraints, 4 Preemption is not helpful for scheduling.",
            &[(Taint, 4), (TopologySpread, 2)],
            Some(6),
        ),
        // node condition taints are node_not_ready
        (
            "https://github.com/kubernetes/minikube/issues/14924",
            "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            &[(NodeNotReady, 1)],
            Some(1),
        ),
        (
            "https://github.com/kubernetes-sigs/kubespray/issues/9989",
            "0/3 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
            &[(NodeNotReady, 3)],
            Some(3),
        ),
        (
            "https://github.com/hystax/optscale/issues/568",
            "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            &[(NodeNotReady, 1)],
            Some(1),
        ),
        // node pressure is its own cause: the node is Ready, short of disk,
        // memory or process ids, and tainted for it
        (
            "https://github.com/snowdrop/k8s-infra/issues/249",
            "0/1 nodes are available: 1 node(s) had taint {node.kubernetes.io/disk-pressure: }, that the pod didn't tolerate.",
            &[(NodeDiskPressure, 1)],
            Some(1),
        ),
        // a YAML-folded condition message (folded inside the braces), joined back with one space
        (
            "https://github.com/rootless-containers/usernetes/pull/155",
            "0/1 nodes are available: 1 node(s) had taint {node.kubernetes.io/disk-pressure: }, that the pod didn't tolerate.",
            &[(NodeDiskPressure, 1)],
            Some(1),
        ),
        // a custom scheduler's suffix after the preemption clause
        (
            "https://github.com/secretflow/kuscia/issues/236",
            "0/2 nodes are available: 2 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling., reject the pod secretflow-task-20240228161259-single-psi-0 even after PostFilter.",
            &[(NodeDiskPressure, 2)],
            Some(2),
        ),
        // a terminal wrapped "nodes a|re" mid-word; joined back
        (
            "https://github.com/crc-org/crc/issues/4798",
            "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            &[(NodeDiskPressure, 1)],
            Some(1),
        ),
        (
            "https://github.com/aws/karpenter-provider-aws/issues/5463",
            "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }, 2 Too many pods. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod..",
            &[(InsufficientPods, 2), (NodeMemoryPressure, 1)],
            Some(3),
        ),
        // the predicate names of 1.7-1.9
        (
            "https://github.com/kubernetes/kubernetes/issues/52166",
            "No nodes are available that match all of the following predicates:: NodeUnderMemoryPressure (1).",
            &[(NodeMemoryPressure, 1)],
            None,
        ),
        (
            "https://github.com/openshift/origin/issues/17352",
            "0/1 nodes are available: 1 NodeUnderDiskPressure.",
            &[(NodeDiskPressure, 1)],
            Some(1),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/66568",
            "0/6 nodes are available: 3 node(s) didn't have free ports for the requested pod ports, 3 node(s) didn't match node selector.",
            &[(HostPort, 3), (NodeAffinity, 3)],
            Some(6),
        ),
        (
            "https://github.com/datawire/edge-stack/issues/2",
            "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.",
            &[(HostPort, 2)],
            Some(2),
        ),
        (
            "https://github.com/apache/apisix-helm-chart/issues/346",
            "0/3 nodes are available: 3 pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            &[(VolumeBinding, 3)],
            Some(3),
        ),
        // the poster copied the message from "pod has ..." on
        (
            "https://github.com/open-metadata/openmetadata-helm-charts/issues/417",
            "pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling",
            &[(VolumeBinding, 1)],
            None,
        ),
        (
            "https://github.com/kubernetes-sigs/sig-storage-local-static-provisioner/issues/424",
            "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. preemption: 0/1 nodes are available: 1 Preemption is not helpful for sched",
            &[(VolumeBinding, 1)],
            Some(1),
        ),
        (
            "https://github.com/minio/directpv/issues/100",
            "0/4 nodes are available: 4 node(s) had volume node affinity conflict.",
            &[(VolumeZone, 4)],
            Some(4),
        ),
        // "volume node affinity conflict" must not be read as node affinity
        (
            "https://github.com/yugabyte/yugabyte-db/pull/20349",
            "0/10 nodes are available: 3 node(s) had volume node affinity conflict, 7 node(s) didn't match Pod's node affinity/selector. preemption: 0/10 nodes are available: 10 Preemption is not helpful for scheduling..",
            &[(VolumeZone, 3), (NodeAffinity, 7)],
            Some(10),
        ),
        // the newline after the comma is in the poster's copy
        (
            "https://github.com/radondb/radondb-mysql-kubernetes/issues/395",
            "0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, \nthat the pod didn't tolerate, 2 node(s) had volume node affinity conflict.",
            &[(Taint, 1), (VolumeZone, 2)],
            Some(3),
        ),
        // the old combined pod affinity/anti-affinity reason
        (
            "https://github.com/Altinity/clickhouse-operator/issues/702",
            "0/9 nodes are available: 1 node(s) didn't match pod affinity/anti-affinity, 8 node(s) had volume node affinity conflict.",
            &[(PodAntiAffinity, 1), (VolumeZone, 8)],
            Some(9),
        ),
        (
            "https://github.com/solarhess/kubernetes-minecraft-server/issues/3",
            r#"0/1 nodes are available: 1 persistentvolumeclaim "minecraft-data-pvc" not found."#,
            &[(PvcNotFound, 1)],
            Some(1),
        ),
        (
            "https://github.com/aws/karpenter-provider-aws/issues/6447",
            "0/20 nodes are available: 1 node(s) had untolerated taint {windowsContainers: true}, 2 node(s) had untolerated taint {eks.amazonaws.com/compute-type: fargate}, 4 node(s) didn't match Pod's node affinity/selector, 4 node(s) didn't match pod anti-affinity rules, 9 node(s) didn't match pod topology spread constraints. preemption: 0/20 nodes are available: 13 No preemption victims found for incoming pod, 7 Preemption is not helpful for scheduling.",
            &[
                (Taint, 3),
                (NodeAffinity, 4),
                (PodAntiAffinity, 4),
                (TopologySpread, 9),
            ],
            Some(20),
        ),
        (
            "https://github.com/digitalocean/csi-digitalocean/issues/314",
            "0/3 nodes are available: 1 node(s) had taints that the pod didn't tolerate, 2 node(s) exceed max volume count.",
            &[(Taint, 1), (TooManyVolumes, 2)],
            Some(3),
        ),
        (
            "https://github.com/aws/karpenter-provider-aws/issues/3647",
            "0/5 nodes are available: 2 node(s) had untolerated taint {CriticalAddonsOnly: true}, 3 node(s) exceed max volume count. preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
            &[(Taint, 2), (TooManyVolumes, 3)],
            Some(5),
        ),
        (
            "https://github.com/aws/karpenter-provider-aws/issues/1887",
            "0/13 nodes are available: 1 Too many pods, 1 node(s) had taint {kubernetes.io/arch: arm64}, that the pod didn't tolerate, 1 node(s) were unschedulable, 5 node(s) exceed max volume count, 5 node(s) had taint {nd.group-name: kube-system}, that the pod didn't tolerate.",
            &[
                (InsufficientPods, 1),
                (Taint, 6),
                (NodeUnschedulable, 1),
                (TooManyVolumes, 5),
            ],
            Some(13),
        ),
        (
            "https://github.com/lucidworks/fusion-cloud-native/issues/198",
            "0/4 nodes are available: 1 node(s) exceed max volume count, 1 node(s) had taint {ToBeDeletedByClusterAutoscaler: 1636478510}, that the pod didn't tolerate, 2 node(s) didn't match Pod's node affinity.",
            &[(TooManyVolumes, 1), (Taint, 1), (NodeAffinity, 2)],
            Some(4),
        ),
        // Volcano's scheduler words it "nodes are unavailable"
        (
            "https://github.com/volcano-sh/volcano/issues/3191",
            "0/2 nodes are unavailable: 1 plugin NodeUnschedulable predicates failed node(s) were unschedulable, 1 plugin NodeVolumeLimits predicates failed node(s) exceed max volume count.",
            &[(NodeUnschedulable, 1), (TooManyVolumes, 1)],
            Some(2),
        ),
        // the scheduler before 1.10: "predicates:" and counts in parentheses
        (
            "https://github.com/argoproj/argo-workflows/issues/190",
            "No nodes are available that match all of the following predicates:: Insufficient cpu (9), Insufficient memory (15), MatchNodeSelector (18).",
            &[
                (InsufficientCpu, 9),
                (InsufficientMemory, 15),
                (NodeAffinity, 18),
            ],
            None,
        ),
        (
            "https://github.com/giantswarm/prometheus/issues/85",
            "No nodes are available that match all of the following predicates:: Insufficient cpu (3).",
            &[(InsufficientCpu, 3)],
            None,
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/63190",
            "No nodes are available that match all of the predicates: Insufficient ephemeral-storage (2), PodToleratesNodeTaints (3)",
            &[(InsufficientEphemeralStorage, 2), (Taint, 3)],
            None,
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/49440",
            "No nodes are available that match all of the following predicates:: PodFitsHostPorts (1), PodToleratesNodeTaints (1).",
            &[(HostPort, 1), (Taint, 1)],
            None,
        ),
        (
            "https://github.com/kahkhang/kube-linode/issues/42",
            "No nodes are available that match all of the following predicates:: MatchNodeSelector (1), PodToleratesNodeTaints (1).",
            &[(NodeAffinity, 1), (Taint, 1)],
            None,
        ),
    ];
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, message, expected, total)| {
            let parsed = scheduler_reasons(message);
            let expected: BTreeMap<PendingCause, u32> = expected.iter().copied().collect();
            (parsed.reasons != expected || parsed.nodes_total != *total).then(|| {
                format!(
                    "  {source}\n    expected {expected:?} of {total:?}, got {:?} of {:?}\n    {message}",
                    parsed.reasons, parsed.nodes_total
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "scheduler: {} of {} real messages misparsed:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

/// Runs [`scheduler_reasons`] over rows and reports every misparsed one.
fn check_scheduler(family: &str, rows: &[SchedulerRow]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, message, expected, total)| {
            let parsed = scheduler_reasons(message);
            let expected: BTreeMap<PendingCause, u32> = expected.iter().copied().collect();
            (parsed.reasons != expected || parsed.nodes_total != *total).then(|| {
                format!(
                    "  {source}\n    expected {expected:?} of {total:?}, got {:?} of {:?}\n    {message}",
                    parsed.reasons, parsed.nodes_total
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{family}: {} of {} real messages misparsed:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

#[test]
fn scheduler_wordings_across_versions() {
    use PendingCause::*;
    let rows: &[SchedulerRow] = &[
        // --- the scheduler before 1.6: "fit failure summary on nodes" with
        // predicate names and counts in parentheses ---
        // the event's message has a newline after "node"
        (
            "https://github.com/kubernetes/kubernetes/issues/41070",
            "pod (test-1012964845-v8915) failed to fit in any node\nfit failure summary on nodes : Insufficient pods (2), PodToleratesNodeTaints (1)",
            &[(InsufficientPods, 2), (Taint, 1)],
            None,
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/41070",
            "pod (redis-595045062-jv9wh) failed to fit in any node fit failure summary on nodes : NoVolumeZoneConflict (3), PodToleratesNodeTaints (1)",
            &[(VolumeZone, 3), (Taint, 1)],
            None,
        ),
        (
            "https://github.com/openshift/origin/issues/15572",
            "pod (mongodb-1-8cjbw) failed to fit in any node fit failure summary on nodes : NoVolumeZoneConflict (1)",
            &[(VolumeZone, 1)],
            None,
        ),
        (
            "https://github.com/kubernetes/kops/issues/2730",
            "pod (vsphere-e2e-j11sb) failed to fit in any node - fit failure summary on nodes : MatchNodeSelector (2), PodToleratesNodeTaints (1)",
            &[(NodeAffinity, 2), (Taint, 1)],
            None,
        ),
        // an extended resource (the Kubernetes docs' own example output)
        (
            "https://github.com/kubernetes/website/blob/main/content/en/docs/tasks/configure-pod-container/extended-resource.md",
            "pod (extended-resource-demo-2) failed to fit in any node\nfit failure summary on nodes : Insufficient example.com/dongle (1)",
            &[(InsufficientOther, 1)],
            None,
        ),
        // 1.4: one line per node
        (
            "https://github.com/kubernetes/kubernetes/issues/37232",
            "pod (jenkins-master-645022479-ov9ka) failed to fit in any node\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-spgr): Insufficient cpu\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-jitr): Insufficient cpu\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-3qqu): Insufficient cpu\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-530e): Insufficient cpu",
            &[(InsufficientCpu, 4)],
            None,
        ),
        // 1.0: one predicate named
        (
            "https://github.com/kubernetes/kubernetes/issues/14586",
            "Failed for reason PodFitsPorts and possibly others",
            &[(HostPort, 1)],
            None,
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/11453",
            "Failed for reason PodFitsResources and possibly others",
            &[(InsufficientOther, 1)],
            None,
        ),
        // 1.6-1.9 "predicates:" with the inter-pod affinity predicate
        (
            "https://github.com/ewolff/microservice-kubernetes/issues/3",
            "No nodes are available that match all of the following predicates:: MatchInterPodAffinity (3).",
            &[(PodAffinity, 3)],
            None,
        ),
        // OpenShift 3.x: predicate names in the counted list
        (
            "https://github.com/openshift/origin/issues/19506",
            "0/3 nodes are available: 1 ExistingPodsAntiAffinityRulesNotMatch, 1 MatchInterPodAffinity, 2 CheckServiceAffinity.",
            &[(PodAntiAffinity, 1), (PodAffinity, 3)],
            Some(3),
        ),
        // --- volume binding, every wording ---
        // a claim bound to a volume that does not exist is volume binding,
        // though the message starts with "persistentvolumeclaim"
        (
            "https://github.com/mariadb-operator/mariadb-operator/issues/374",
            r#"0/4 nodes are available: persistentvolumeclaim "storage-mariadb-0" bound to non-existent persistentvolume "pvc-2395f2db-c079-4440-a4b9-2dafaeb79452". preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."#,
            &[(VolumeBinding, 4)],
            Some(4),
        ),
        // 1.11-era wording (the event repeated, as kubectl printed it)
        (
            "https://github.com/instaclustr/cassandra-operator/issues/112",
            "pod has unbound PersistentVolumeClaims (repeated 4 times)",
            &[(VolumeBinding, 1)],
            None,
        ),
        // the scheduler framework's error, as the scheduler logged it
        (
            "https://github.com/kubernetes/minikube/issues/6205",
            r#"error while running "VolumeBinding" filter plugin for pod "wp-test-wordpress-75bcf4685f-zp4d2": pod has unbound immediate PersistentVolumeClaims"#,
            &[(VolumeBinding, 1)],
            None,
        ),
        // CSI storage capacity tracking
        (
            "https://github.com/openebs/zfs-localpv/issues/400",
            "0/3 nodes are available: 3 node(s) did not have enough free storage.",
            &[(VolumeBinding, 3)],
            Some(3),
        ),
        (
            "https://github.com/openebs/lvm-localpv/issues/265",
            "0/4 nodes are available: 1 node(s) did not have enough free storage, 1 node(s) had untolerated taint {k3s-controlplane: true}, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
            &[(VolumeBinding, 1), (Taint, 1), (NodeAffinity, 2)],
            Some(4),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/100400",
            "0/20 nodes are available: 1 node(s) didn't match pod affinity/anti-affinity, 19 node(s) didn't match node selector.",
            &[(PodAntiAffinity, 1), (NodeAffinity, 19)],
            Some(20),
        ),
    ];
    check_scheduler("scheduler (more wordings)", rows);
}
