#!/usr/bin/python3
"""Sums the GoogleTest results Bazel left in bazel-testlogs/*/test.xml into one closing line:
'tests: N passed, M failed, K skipped' (skipped = GTEST_SKIP, e.g. GPU tests on a machine without one).
Exit status 1 if any test case failed."""
import pathlib
import sys
import xml.etree.ElementTree as ET

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bazel-testlogs")
passed = failed = skipped = 0
failures = []
for xml_file in sorted(root.glob("**/test.xml")):
    try:
        tree = ET.parse(xml_file)
    except ET.ParseError as error:  # a crashed test leaves Bazel's own minimal XML or none
        failed += 1
        failures.append(f"{xml_file}: unreadable ({error})")
        continue
    for case in tree.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            failures.append(f"{xml_file.parent.relative_to(root)}: {case.get('classname')}.{case.get('name')}")
        elif case.get("result") == "skipped" or case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
for line in failures:
    print("FAILED", line)
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
