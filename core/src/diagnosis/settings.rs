//! The thresholds after which a state is a finding: each declared once here,
//! with its default and its meaning. The binary makes a flag and an
//! environment variable of each, and README's table of them is generated from
//! this list (`cargo xtask generate`).

use jiff::SignedDuration;

/// One threshold: the `Settings` field it sets, its default as the flag
/// takes it, and what it means.
#[derive(Debug, Clone, Copy)]
pub struct Threshold {
    /// The field's name; the flag is this with dashes (`drain_after` is
    /// `--drain-after`).
    pub field: &'static str,
    pub default: &'static str,
    pub meaning: &'static str,
    pub get: fn(&Settings) -> SignedDuration,
    pub set: fn(&mut Settings, SignedDuration),
}

impl Threshold {
    /// The command line's flag, without its dashes.
    pub fn flag(&self) -> String {
        self.field.replace('_', "-")
    }

    /// The environment variable that sets it when the flag is not given.
    pub fn env(&self) -> String {
        format!("KUBE_LIFECYCLE_{}", self.field.to_ascii_uppercase())
    }
}

/// A default as written in the table (`5m`, `11h`): jiff's friendly format,
/// which reads these as the flag's parser does.
fn parse_default(text: &str) -> SignedDuration {
    text.parse()
        .unwrap_or_else(|e| panic!("threshold default {text:?}: {e}"))
}

macro_rules! thresholds {
    ($($field:ident = $default:literal : $meaning:literal,)+) => {
        /// Thresholds for anomalies that are only anomalies after a while.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Settings {
            $(#[doc = $meaning] pub $field: SignedDuration,)+
        }

        /// Every threshold, in the order the flags are listed.
        pub const THRESHOLDS: &[Threshold] = &[$(Threshold {
            field: stringify!($field),
            default: $default,
            meaning: $meaning,
            get: |s| s.$field,
            set: |s, d| s.$field = d,
        },)+];

        impl Default for Settings {
            fn default() -> Self {
                Settings { $($field: parse_default($default),)+ }
            }
        }
    };
}

thresholds! {
    unscheduled_after = "5m" : "A pod with no PodScheduled condition this long after creation is `pod_pending`, cause `not_scheduled`: no scheduler has looked at it.",
    creating_after = "5m" : "A scheduled pod creating containers this long with no warning event that explains it is `container_creating`, cause `unknown`.",
    not_ready_after = "5m" : "A Running pod not Ready this long (since its Ready condition changed) is `pod_not_ready`.",
    init_after = "5m" : "A pod whose start waits this long on an init container that runs (or a native sidecar that has not started) is `init_container_running`.",
    unavailable_after = "5m" : "A Deployment (its Available condition False), StatefulSet or DaemonSet short of available pods this long with no pod of it saying why gets the verdict `rollout_stuck`, `statefulset_update_stuck` or `daemonset_rollout_stuck`, cause `replicas_unavailable` (`daemon_pod_failed` for a DaemonSet whose failed pod on a node its controller keeps deleting); a workload whose pods say why gets its verdict as soon as they do.",
    // An hour before the kubernetes-mixin's KubeJobNotCompleted (12h), which
    // the Job's alert silences.
    job_after = "11h" : "A Job active this long after it started, with no pod of it in trouble, is `job_not_completed`, cause `running_long`.",
    gated_after = "30m" : "A pod held by `spec.schedulingGates` this long is `pod_pending`, cause `gated_too_long` (alerted: `KubeLifecyclePodSchedulingGated`); before, `scheduling_gated` (informational).",
    // A running provisioner reports its first failed attempt within a minute
    // or so; five minutes of silence is none answering.
    claim_after = "5m" : "A PersistentVolumeClaim Pending this long with no provisioner's error (one is named and says nothing: none is running; or no class and no volume), or Terminating this long, is `claim_stuck` (a provisioner's `ProvisioningFailed` is read at once).",
    // A drain evicts what it can within a minute or two; a budget still at
    // zero after ten is not a replacement coming up. With the alert's five
    // minutes a ticket is raised at fifteen, when an EKS managed node group's
    // update gives up on the node.
    drain_after = "10m" : "A node being drained (cordoned, or tainted by an autoscaler draining it) this long that keeps pods a drain cannot evict (a PodDisruptionBudget allowing no disruption, a pod of no controller, one stuck Terminating) is `node_drain_blocked`.",
}

/// README's table of the thresholds (a generated block).
pub fn thresholds_markdown() -> String {
    let mut out = String::from("| flag | default | meaning |\n|---|---|---|\n");
    for t in THRESHOLDS {
        out.push_str(&format!(
            "| `--{}` | `{}` | {} |\n",
            t.flag(),
            t.default,
            t.meaning
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_parses_and_each_threshold_sets_its_own_field() {
        let defaults = Settings::default();
        for (i, t) in THRESHOLDS.iter().enumerate() {
            assert_eq!((t.get)(&defaults), parse_default(t.default), "{}", t.field);
            assert!(
                parse_default(t.default) > SignedDuration::ZERO,
                "{}",
                t.field
            );
            let mut changed = Settings::default();
            let value = SignedDuration::from_secs(1_000_000 + i as i64);
            (t.set)(&mut changed, value);
            assert_eq!((t.get)(&changed), value, "{}", t.field);
            // Only its own field moved.
            for other in THRESHOLDS.iter().filter(|o| o.field != t.field) {
                assert_eq!((other.get)(&changed), (other.get)(&defaults), "{}", t.field);
            }
        }
        let drain = THRESHOLDS
            .iter()
            .find(|t| t.field == "drain_after")
            .unwrap();
        assert_eq!(drain.flag(), "drain-after");
        assert_eq!(drain.env(), "KUBE_LIFECYCLE_DRAIN_AFTER");
        assert_eq!(defaults.job_after, SignedDuration::from_hours(11));
    }
}
