// alerts/templates/kube-lifecycle.tmpl: the notification templates, as the
// mixin ships them (mixin.libsonnet's notificationTemplates).
local mixin = import '../mixin.libsonnet';
std.rstripChars(mixin.notificationTemplates, '\n')
