#!/usr/bin/env python3
"""Writes the fuzzer's starting seeds into tests/fuzz-corpus/ (see docs/fuzzing.md):
each object of examples/incidents.yaml as a small YAML List, a JSON List and a
watch page; the whole example; and the real messages quoted in
tests/real_messages*.rs (their sources are cited there). Run once; the fuzzer
adds what it finds to the same directory."""
import hashlib, json, pathlib, re, yaml

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "tests" / "fuzz-corpus"
out.mkdir(exist_ok=True)

def save(prefix, data):
    if isinstance(data, str):
        data = data.encode()
    name = f"{prefix}-{hashlib.sha256(data).hexdigest()[:16]}"
    (out / name).write_bytes(data)

example = (root / "examples" / "incidents.yaml").read_text()
save("dump", example)
items = yaml.safe_load(example)["items"]
for item in items:
    doc = {"apiVersion": "v1", "items": [item], "kind": "List", "metadata": {"resourceVersion": ""}}
    save("dump", yaml.safe_dump(doc, sort_keys=True))
    save("dump", json.dumps(doc, separators=(",", ":")))
    save("page", json.dumps({"kind": item["kind"] + "List", "apiVersion": item.get("apiVersion", "v1"),
                             "metadata": {"resourceVersion": "12345", "continue": ""}, "items": [item]}))
# A single object and multi-document YAML, as kubectl prints them.
save("dump", yaml.safe_dump(items[0]))
save("dump", "---\n".join(yaml.safe_dump(i) for i in items[:3]))

messages = set()
for path in sorted((root / "tests").glob("real_*.rs")):
    text = path.read_text()
    for m in re.finditer(r'r#"(.*?)"#', text, re.S):
        messages.add(m.group(1))
for item in items:
    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("message", "reason") and isinstance(x, str):
                    messages.add(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(item)
# Every third message, shortest first: enough wordings to start from.
for m in sorted((m for m in messages if 10 <= len(m) <= 1000), key=len)[::3]:
    save("message", m)
print(len(list(out.iterdir())), "files")
