// dashboards/*.json, one file per dashboard, from the repository root:
//
//   jsonnet -S -m dashboards/ mixin/render/dashboards.jsonnet
local mixin = import '../mixin.libsonnet';
{
  [name]: std.manifestJsonEx(mixin.grafanaDashboards[name], '  ') + '\n'
  for name in std.objectFields(mixin.grafanaDashboards)
}
