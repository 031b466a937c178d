#!/usr/bin/python3
"""Counts test cases, not Bazel targets, for scripts/test.sh.

  count_cases.py LOG CONFIG  ->  appends "CONFIG TARGET passed failed skipped"
                                  lines for every target LOG's summary lists

Reads each target's test.xml (gtest's cases: a case with <failure> failed,
one skipped or disabled (result="skipped", status="notrun") was skipped). A target that failed without a test.xml (a
crash, a timeout) counts one failed case; one without cases (a sh_test)
counts as one case of its own status. Skipped cases are listed by name.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

log, config = sys.argv[1], sys.argv[2]
line_re = re.compile(r"^(//\S+)\s+(?:\(cached\) )?(PASSED|FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)")
for line in open(log, errors="replace"):
    m = line_re.match(line)
    if not m:
        continue
    target, status = m.group(1), m.group(2)
    pkg, name = target[2:].split(":")
    xml = os.path.join("bazel-testlogs", pkg, name, "test.xml")
    passed = failed = skipped = 0
    skipped_names = []
    try:
        root = ET.parse(xml).getroot()
        for case in root.iter("testcase"):
            full = case.get("classname", "") + "." + case.get("name", "")
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif (case.get("result") in ("skipped", "suppressed") or case.get("status") == "notrun" or
                  case.find("skipped") is not None):  # GTEST_SKIP, or a DISABLED_ test
                skipped += 1
                skipped_names.append(full)
            else:
                passed += 1
    except (OSError, ET.ParseError):
        pass
    if passed + failed + skipped == 0:
        passed, failed = (1, 0) if status == "PASSED" else (0, 1)
    elif status != "PASSED" and failed == 0:
        failed = 1  # the target failed outside its cases (a crash after them, a sanitizer report)
    print(f"{config} {target} {passed} {failed} {skipped}")
    for n in skipped_names:
        print(f"# skipped: {config} {target} {n}")
