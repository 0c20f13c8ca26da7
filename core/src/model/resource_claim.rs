//! The slim ResourceClaim (resource.k8s.io, Dynamic Resource Allocation, GA
//! 1.34): whether it exists, is being deleted, is allocated and for which
//! pods it is reserved. What a pod waiting for its devices is told by nothing
//! else: the scheduler writes no condition before the claims are usable.

use serde::Deserialize;

use super::meta::{Meta, nullable};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ResourceClaim {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub status: ResourceClaimStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceClaimStatus {
    /// Present once the scheduler allocated devices; only its presence is kept.
    #[serde(default, deserialize_with = "allocated")]
    pub allocation: bool,
    #[serde(default, deserialize_with = "nullable")]
    pub reserved_for: Vec<ClaimConsumer>,
}

/// `status.reservedFor[]`: a pod (or other consumer) the claim is reserved for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ClaimConsumer {
    #[serde(default, deserialize_with = "nullable")]
    pub resource: String,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
}

/// Whether `status.allocation` holds an object (its content is not kept).
fn allocated<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let value = Option::<serde::de::IgnoredAny>::deserialize(deserializer)?;
    Ok(value.is_some())
}

impl ResourceClaim {
    pub(crate) fn is_deleting(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }

    /// The pods it is reserved for, by name.
    pub(crate) fn reserved_for_pods(&self) -> impl Iterator<Item = &str> {
        self.status
            .reserved_for
            .iter()
            .filter(|c| c.resource == "pods")
            .map(|c| c.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kubernetes/website, install-use-dra.md (resource.k8s.io/v1beta2).
    #[test]
    fn an_allocated_reserved_claim() {
        let claim: ResourceClaim = serde_json::from_str(
            r#"{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaim",
            "metadata":{"name":"some-gpu","namespace":"dra-tutorial","finalizers":["resource.kubernetes.io/delete-protection"]},
            "spec":{"devices":{"requests":[{"name":"some-gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]}},
            "status":{"allocation":{"devices":{"results":[{"device":"gpu-4","driver":"gpu.example.com","pool":"kind-worker","request":"some-gpu"}]}},
              "reservedFor":[{"name":"pod0","resource":"pods","uid":"fa55b59b-d28d-4f7d-9e5b-ef4c8476dff5"}]}}"#,
        )
        .unwrap();
        assert!(claim.status.allocation);
        assert_eq!(claim.reserved_for_pods().collect::<Vec<_>>(), ["pod0"]);
        assert!(!claim.is_deleting());
        let pending: ResourceClaim =
            serde_json::from_str(r#"{"metadata":{"name":"c"},"status":{"allocation":null}}"#)
                .unwrap();
        assert!(!pending.status.allocation);
    }
}
