//! The slim PersistentVolumeClaim (core v1): what says whether a claim waits
//! for a volume, for its pods to let it go, or for an expansion. Its
//! annotations are read down to the two the volume controllers write: who is
//! asked to provision it and the node the scheduler chose for it.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::meta::{Condition, ConditionStatus, List, Meta, Time, compact, nullable};
use super::name::{Name, interned};
use super::uid::Uid;

/// The PV controller writes this when it hands the claim to a provisioner
/// (pkg/controller/volume/persistentvolume, `AnnStorageProvisioner`; the beta
/// key is what clusters before 1.23 wrote, and still write beside it).
const PROVISIONER: &str = "volume.kubernetes.io/storage-provisioner";
const PROVISIONER_BETA: &str = "volume.beta.kubernetes.io/storage-provisioner";
/// The scheduler writes this on a WaitForFirstConsumer claim once a pod that
/// uses it has a node (`AnnSelectedNode`).
const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "ClaimWire")]
pub struct PersistentVolumeClaim {
    pub metadata: Meta,
    /// The provisioner the PV controller asked for a volume (empty: none yet).
    pub provisioner: String,
    /// The node the scheduler chose for the claim's first pod (empty: none).
    pub selected_node: String,
    pub spec: ClaimSpec,
    pub status: ClaimStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimSpec {
    /// `None`: the cluster's default class applies; `Some("")`: no class, a
    /// pre-provisioned volume only.
    #[serde(default)]
    pub storage_class_name: Option<String>,
    /// The volume it is (to be) bound to.
    #[serde(default, deserialize_with = "nullable")]
    pub volume_name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimStatus {
    /// `Pending`, `Bound` or `Lost`.
    #[serde(default, deserialize_with = "nullable")]
    pub phase: String,
    /// Resizing, FileSystemResizePending, ControllerResizeError, NodeResizeError.
    #[serde(default, deserialize_with = "compact")]
    pub conditions: List<Condition>,
    /// Per resource, the resize state (`ControllerResizeInProgress`,
    /// `ControllerResizeInfeasible`, `NodeResizePending`, ...; 1.31+,
    /// RecoverVolumeExpansionFailure). Empty when no resize is under way.
    #[serde(default, deserialize_with = "nullable")]
    pub allocated_resource_statuses: BTreeMap<String, String>,
}

impl PersistentVolumeClaim {
    /// The True condition of `type_`, if any.
    pub(crate) fn condition(&self, type_: &str) -> Option<&Condition> {
        self.status
            .conditions
            .iter()
            .find(|c| c.type_ == type_ && c.status == ConditionStatus::True)
    }

    /// Whether an expansion is under way: a resize condition, or a resize
    /// state kept for some resource (both are cleared once it is done).
    pub(crate) fn is_resizing(&self) -> bool {
        !self.status.allocated_resource_statuses.is_empty()
            || [
                "Resizing",
                "FileSystemResizePending",
                "ControllerResizeError",
                "NodeResizeError",
            ]
            .iter()
            .any(|t| self.condition(t).is_some())
    }
}

/// A claim as the API prints it (of the fields kept).
#[derive(Deserialize)]
struct ClaimWire {
    #[serde(default, deserialize_with = "nullable")]
    metadata: ClaimMetaWire,
    #[serde(default, deserialize_with = "nullable")]
    spec: ClaimSpec,
    #[serde(default, deserialize_with = "nullable")]
    status: ClaimStatus,
}

/// The claim's metadata: [`Meta`]'s fields and the annotations, from which
/// only the volume controllers' are kept.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaimMetaWire {
    #[serde(default, deserialize_with = "nullable")]
    name: Name,
    #[serde(default, deserialize_with = "interned")]
    namespace: Name,
    #[serde(default, deserialize_with = "nullable")]
    uid: Uid,
    #[serde(default, deserialize_with = "nullable")]
    resource_version: Name,
    #[serde(default, deserialize_with = "super::time::optional")]
    creation_timestamp: Option<Time>,
    #[serde(default, deserialize_with = "super::time::optional")]
    deletion_timestamp: Option<Time>,
    #[serde(default, deserialize_with = "compact")]
    finalizers: List<String>,
    #[serde(default, deserialize_with = "nullable")]
    annotations: BTreeMap<String, String>,
}

impl From<ClaimWire> for PersistentVolumeClaim {
    fn from(wire: ClaimWire) -> Self {
        let mut m = wire.metadata;
        let mut take = |key: &str| m.annotations.remove(key).unwrap_or_default();
        let provisioner = match take(PROVISIONER) {
            p if p.is_empty() => take(PROVISIONER_BETA),
            p => p,
        };
        let selected_node = take(SELECTED_NODE);
        PersistentVolumeClaim {
            metadata: Meta {
                name: m.name,
                namespace: m.namespace,
                uid: m.uid,
                resource_version: m.resource_version,
                creation_timestamp: m.creation_timestamp,
                deletion_timestamp: m.deletion_timestamp,
                finalizers: m.finalizers,
                ..Meta::default()
            },
            provisioner,
            selected_node,
            spec: wire.spec,
            status: wire.status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape `kubectl get pvc -o json` prints of a claim handed to a CSI
    /// provisioner after the scheduler chose a node (the annotations as
    /// pv_controller.go and the scheduler's volume binder write them).
    #[test]
    fn a_claim_keeps_its_provisioner_node_and_resize_state() {
        let claim: PersistentVolumeClaim = serde_json::from_str(
            r#"{"apiVersion":"v1","kind":"PersistentVolumeClaim",
            "metadata":{"name":"data-web-0","namespace":"shop","uid":"3c1b","resourceVersion":"77",
              "creationTimestamp":"2024-05-01T10:00:00Z",
              "annotations":{"volume.beta.kubernetes.io/storage-provisioner":"ebs.csi.aws.com",
                "volume.kubernetes.io/selected-node":"ip-10-0-1-17.ec2.internal",
                "kubectl.kubernetes.io/last-applied-configuration":"{}"},
              "finalizers":["kubernetes.io/pvc-protection"],
              "labels":{"app":"web"}},
            "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"20Gi"}},
              "storageClassName":"gp3","volumeMode":"Filesystem"},
            "status":{"phase":"Pending"}}"#,
        )
        .unwrap();
        assert_eq!(claim.provisioner, "ebs.csi.aws.com");
        assert_eq!(claim.selected_node, "ip-10-0-1-17.ec2.internal");
        assert_eq!(claim.spec.storage_class_name.as_deref(), Some("gp3"));
        assert_eq!(
            &*claim.metadata.finalizers,
            ["kubernetes.io/pvc-protection"]
        );
        assert_eq!(claim.status.phase, "Pending");
        assert!(!claim.is_resizing());

        let resizing: PersistentVolumeClaim = serde_json::from_str(
            r#"{"metadata":{"name":"c","annotations":null},"spec":{"storageClassName":null,"volumeName":"pv-1"},
            "status":{"phase":"Bound","allocatedResourceStatuses":{"storage":"ControllerResizeInfeasible"},
              "conditions":[{"type":"ControllerResizeError","status":"True","message":"x"}]}}"#,
        )
        .unwrap();
        assert!(resizing.is_resizing());
        assert!(resizing.condition("ControllerResizeError").is_some());
        assert_eq!(resizing.spec.storage_class_name, None);
        assert!(resizing.provisioner.is_empty());
    }
}
