#!/usr/bin/env python3
"""Fail if wscript/examples/wscript (waf, ns-3 <= 3.35) and CMakeLists.txt list different files.

Also fails if a source or header in model/ or helper/, a test in test/ or an example in
examples/ exists on disk but is in no list, or a listed file does not exist.
Usage: check-build-lists.py <repo root>
"""
import ast
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
errors = []


def cmake_list(text, name):
    m = re.search(r"set\(\s*" + name + r"\s+([^)]*)\)", text)
    if not m:
        errors.append(f"CMakeLists.txt: set({name} ...) not found")
        return []
    return m.group(1).split()


def wscript_list(text, target):
    m = re.search(re.escape(target) + r"\s*=\s*(\[[^\]]*\])", text)
    if not m:
        errors.append(f"wscript: '{target} = [...]' not found")
        return []
    return ast.literal_eval(m.group(1))


cm = (root / "CMakeLists.txt").read_text()
ws = (root / "wscript").read_text()
ews = (root / "examples" / "wscript").read_text()
for name, text in (("wscript", ws), ("examples/wscript", ews)):
    try:
        compile(text, name, "exec")  # waf scripts are Python: at least they must parse
    except SyntaxError as e:
        errors.append(f"{name} is not valid Python: {e}")

pairs = {
    "sources": (cmake_list(cm, "ait_sources"), wscript_list(ws, "module.source")),
    "headers": (cmake_list(cm, "ait_headers"), wscript_list(ws, "headers.source")),
    "tests": (cmake_list(cm, "ait_test_sources") + ["test/ai-training-test-suite.cc"],
              wscript_list(ws, "module_test.source")),
    "examples": (cmake_list(cm, "ait_examples"),
                 re.findall(r"create_ns3_program\(\s*'([^']+)'", ews)),
}
for what, (c, w) in pairs.items():
    if sorted(c) != sorted(w):
        errors.append(f"{what} differ: only in CMakeLists.txt: {sorted(set(c) - set(w))}, "
                      f"only in wscript: {sorted(set(w) - set(c))}")

listed = set(pairs["sources"][0]) | set(pairs["headers"][0]) | set(pairs["tests"][0])
for f in sorted(listed):
    if not (root / f).is_file():
        errors.append(f"listed file {f} does not exist")
for pattern in ("model/*.cc", "model/*.h", "helper/*.cc", "helper/*.h", "test/*-test.cc"):
    for f in sorted(root.glob(pattern)):
        rel = f.relative_to(root).as_posix()
        if rel not in listed:
            errors.append(f"{rel} is in no build list")
# the study program's extra sources: CMakeLists.txt ait_sim_sources = the rest of its
# obj.source list in examples/wscript
sim_cm = [f.split("/", 1)[1] for f in cmake_list(cm, "ait_sim_sources")]
m = re.search(r"create_ns3_program\('ai-training-sim'[^\n]*\n\s*obj\.source\s*=\s*(\[[^\]]*\])", ews)
sim_ws = ast.literal_eval(m.group(1)) if m else []
if sorted(["ai-training-sim.cc"] + sim_cm) != sorted(sim_ws):
    errors.append(f"ai-training-sim sources differ: CMakeLists.txt ait_sim_sources {sim_cm}, "
                  f"examples/wscript {sim_ws}")
for f in sim_cm:
    if not (root / "examples" / f).is_file():
        errors.append(f"listed file examples/{f} does not exist")
for ex in pairs["examples"][0]:
    if not (root / "examples" / f"{ex}.cc").is_file():
        errors.append(f"example examples/{ex}.cc does not exist")
for f in sorted((root / "examples").glob("*.cc")):
    if f.stem not in pairs["examples"][0] and f.name not in sim_cm:
        errors.append(f"examples/{f.name} is in no build list")

if errors:
    print("build lists of CMakeLists.txt and wscript do not match:")
    for e in errors:
        print("  " + e)
    sys.exit(1)
n = sum(len(c) for c, _ in pairs.values())
print(f"wscript and CMakeLists.txt list the same {n} files")
