//! Sharding by namespace: which exporter of `n` owns a namespace. A namespace's
//! objects (a Deployment, its ReplicaSets and pods, its events) and the namespace's
//! own state then stay in one shard. Pure.

use std::fmt;

/// This exporter's part of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    pub index: u32,
    pub total: u32,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ShardError {
    #[error("--total-shards must be at least 1")]
    NoShards,
    #[error("--shard {index} is out of range: shards are numbered 0 to {last} (--total-shards {total})", last = total - 1)]
    OutOfRange { index: u32, total: u32 },
    #[error(
        "cannot take a shard number from pod name {0:?}: it does not end in -<ordinal> (a StatefulSet pod's name does)"
    )]
    NoOrdinal(String),
}

impl Shard {
    pub(crate) fn new(index: u32, total: u32) -> Result<Shard, ShardError> {
        if total == 0 {
            return Err(ShardError::NoShards);
        }
        if index >= total {
            return Err(ShardError::OutOfRange { index, total });
        }
        Ok(Shard { index, total })
    }

    /// The shard of a StatefulSet pod: `kube-lifecycle-exporter-2` is shard 2.
    pub(crate) fn from_pod_name(name: &str, total: u32) -> Result<Shard, ShardError> {
        let ordinal = name
            .rsplit_once('-')
            .and_then(|(_, n)| n.parse::<u32>().ok())
            .ok_or_else(|| ShardError::NoOrdinal(name.to_string()))?;
        Shard::new(ordinal, total)
    }

    /// Whether the exporter is sharded at all.
    pub(crate) fn is_sharded(&self) -> bool {
        self.total > 1
    }

    /// Whether this shard owns `namespace`: FNV-1a (64 bit) of the name, modulo
    /// the number of shards. Stable across versions and platforms.
    pub(crate) fn owns(&self, namespace: &str) -> bool {
        shard_of(namespace, self.total) == self.index
    }
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, total: 1 }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {}", self.index, self.total)
    }
}

/// The shard that owns `namespace` among `total`.
pub(crate) fn shard_of(namespace: &str, total: u32) -> u32 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = namespace
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    (hash % u64::from(total.max(1))) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_namespace_has_exactly_one_owner() {
        for ns in ["default", "kube-system", "monitoring", "a", "", "ünïcode"] {
            let owners: Vec<u32> = (0..3)
                .filter(|&i| Shard::new(i, 3).unwrap().owns(ns))
                .collect();
            assert_eq!(owners.len(), 1, "{ns}");
        }
        assert!(Shard::default().owns("anything"));
    }

    #[test]
    fn fnv1a_is_the_documented_hash() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c.
        assert_eq!(0xaf63_dc4c_8601_ec8c_u64 % 7, u64::from(shard_of("a", 7)));
    }

    #[test]
    fn spreads_namespaces_over_shards() {
        let mut counts = [0; 4];
        for i in 0..4000 {
            counts[shard_of(&format!("team-{i}"), 4) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn shard_from_a_statefulset_pod_name() {
        assert_eq!(
            Shard::from_pod_name("kube-lifecycle-exporter-2", 3),
            Ok(Shard { index: 2, total: 3 })
        );
        assert_eq!(
            Shard::from_pod_name("kube-lifecycle-exporter-3", 3),
            Err(ShardError::OutOfRange { index: 3, total: 3 })
        );
        assert!(matches!(
            Shard::from_pod_name("kube-lifecycle-exporter-7d9f8-abcde", 3),
            Err(ShardError::NoOrdinal(_))
        ));
        assert_eq!(Shard::new(0, 0), Err(ShardError::NoShards));
    }
}
