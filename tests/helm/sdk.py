"""Renders and lints the chart with Helm's own Go SDK, for tests/artifacts/helm/.

helm-python-sdk (PyPI) binds Helm v4's SDK, so no helm binary is needed;
scripts/test installs it, pinned, into the virtual environment it also installs
kubernetes-validate into, and exports that environment's python as HELM_PYTHON.

Reads one JSON request on standard input:
  {"chart": DIR,
   "renders": [{"values": YAML, "name": RELEASE, "namespace": NS}, ...],
   "lints": [{"values": YAML, "namespace": NS}, ...]}
and writes one JSON answer on standard output:
  {"sdk": HELM VERSION,
   "renders": [{"manifests": {TEMPLATE: TEXT}} or {"error": MESSAGE}, ...],
   "lints": [{"messages": [{"severity", "path", "error"}], "errors": [...]}, ...]}
Values are given as YAML text and parsed the way `helm install -f` parses a file.
Only Helm's own failures (schema, templates) are answers; anything else raises.
"""

import json
import sys

import helm_python as helm


def values(text):
    return helm.values_from_yaml(text) if text.strip() else {}


def main():
    request = json.load(sys.stdin)
    chart_dir = request["chart"]
    answer = {"sdk": helm.helm_sdk_version(), "renders": [], "lints": []}
    with helm.Chart.load(chart_dir) as chart:
        for render in request["renders"]:
            try:
                manifests = chart.render(
                    values(render["values"]),
                    name=render["name"],
                    namespace=render["namespace"],
                    is_install=True,
                )
                answer["renders"].append({"manifests": manifests})
            except (helm.HelmValuesError, helm.HelmRenderError) as e:
                answer["renders"].append({"error": str(e)})
    for lint in request["lints"]:
        answer["lints"].append(
            helm.lint(chart_dir, values(lint["values"]), strict=True, namespace=lint["namespace"])
        )
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
