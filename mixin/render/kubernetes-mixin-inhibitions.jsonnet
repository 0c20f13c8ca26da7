// alerts/kubernetes-mixin-inhibitions.yaml: inhibit_rules to add to an Alertmanager
// that also receives the kubernetes-mixin's alerts.
local mixin = import '../mixin.libsonnet';
local yaml = import '../lib/yaml.libsonnet';

|||
  # For clusters that also run the kubernetes-mixin (kube-prometheus,
  # kube-prometheus-stack): when this pack's precise alert fires for an object, the
  # mixin's generic alert for the same object is inhibited, so one problem makes one
  # notification. Add these rules to your Alertmanager's inhibit_rules (for
  # kube-prometheus-stack, deploy/overlays/kube-prometheus-stack/alertmanager-values.yaml
  # holds them with the chart's own). Generated from mixin/ (jsonnet): do not edit
  # here; change mixin/ and run `UPDATE_MIXIN=1 cargo test --test mixin`.
  #
  #   this pack                                   kubernetes-mixin
  #   KubeLifecycleContainer(CrashLooping|OOM...) KubePodCrashLooping
  #   KubeLifecycleImagePull*, ...ConfigError,    KubeContainerWaiting
  #     ...PodContainerCreatingStuck
  #   any pod or container alert                  KubePodNotReady
  #   KubeLifecycleDeploymentRecreateBlocked      KubeDeploymentRolloutStuck, KubeDeploymentReplicasMismatch
  #   KubeLifecycleStatefulSetPodStuck            KubeStatefulSetReplicasMismatch, KubeStatefulSetUpdateNotRolledOut
  #   KubeLifecycleDaemonSetUnscheduled           KubeDaemonSetNotScheduled, KubeDaemonSetRolloutStuck
  #   KubeLifecycleNodeLost                       KubeNodeNotReady, KubeNodeUnreachable
  #   KubeLifecycleSchedulerNotScheduling         KubeSchedulerDown
  #   KubeLifecycleDeploymentRolloutStuck         KubeDeploymentRolloutStuck, KubeDeploymentReplicasMismatch
  #   KubeLifecycleStatefulSetUpdateStuck         KubeStatefulSetUpdateNotRolledOut, KubeStatefulSetReplicasMismatch
  #   KubeLifecycleDaemonSetRolloutStuck          KubeDaemonSetRolloutStuck
  #   KubeLifecycleJobFailed                      KubeJobFailed
  #   KubeLifecycleJobNotCompleted                KubeJobNotCompleted
|||
+ yaml.manifest({ inhibit_rules: mixin.kubernetesMixinInhibitRules })
