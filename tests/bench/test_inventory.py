#!/usr/bin/env python3
"""What the test suite holds and what it costs, so that a change that makes it faster can show
it tests no less.

    ctest --preset ci | tee ctest.log
    tests/bench/test_inventory.py BUILD [--times ctest.log] [--json]

For every Qt Test suite ctest knows in BUILD: its test functions (`-functions`) and its cases
(`-datatags`: a row of a data-driven function, or the function itself when it has no data), with
its labels. With --times, ctest's own timing of each suite from a saved ctest output, slowest
first, and the quick tier's share (label `quick`). Suites that are not Qt Test executables (fuzz targets, scripts) are
counted by name only.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def ctest_tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = []
    for t in json.loads(out)["tests"]:
        labels = []
        env = []
        for prop in t.get("properties", []):
            if prop["name"] == "LABELS":
                labels = prop["value"]
            elif prop["name"] == "ENVIRONMENT":
                env = prop["value"]
        tests.append({"name": t["name"], "command": t.get("command", []), "labels": labels,
                      "environment": env})
    return tests


def qt_test_binary(command):
    """The tst_* executable in a test's command (it may run under mpirun)."""
    for arg in command:
        if os.path.basename(arg).startswith("tst_") and os.access(arg, os.X_OK):
            return arg
    return None


def list_of(binary, flag, environment):
    env = dict(os.environ)
    for pair in environment:
        key, _, value = pair.partition("=")
        env[key] = value
    out = subprocess.run([binary, flag], capture_output=True, text=True, env=env, timeout=60)
    if out.returncode != 0:
        sys.exit(f"{binary} {flag} failed ({out.returncode}): {out.stderr.strip()}")
    return [line for line in out.stdout.splitlines() if line.strip()]


def ctest_times(log):
    """Seconds per test from ctest's console output ('1/9 Test #1: name ..... Passed 0.02 sec')."""
    times = {}
    pattern = re.compile(r"\d+/\d+ Test +#\d+: (\S+) \.*\**\s*(.*?)\s+([\d.]+) sec")
    with open(log, errors="replace") as f:
        for line in f:
            m = pattern.search(line)
            if m:
                times[m.group(1)] = float(m.group(3))
    if not times:
        sys.exit(f"{log}: no ctest results in it")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--times", metavar="LOG", help="ctest's output, for its timing")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    suites = []
    for t in ctest_tests(args.build):
        binary = qt_test_binary(t["command"])
        functions = cases = None
        if binary:
            functions = len(list_of(binary, "-functions", t["environment"]))
            cases = len(list_of(binary, "-datatags", t["environment"]))
        suites.append({"name": t["name"], "labels": t["labels"], "functions": functions,
                       "cases": cases})
    times = ctest_times(args.times) if args.times else {}
    for s in suites:
        s["seconds"] = times.get(s["name"])

    qt = [s for s in suites if s["functions"] is not None]
    totals = {"suites": len(suites), "qt_suites": len(qt),
              "functions": sum(s["functions"] for s in qt), "cases": sum(s["cases"] for s in qt)}
    if args.times:
        timed = [s for s in suites if s["seconds"] is not None]
        totals["seconds"] = round(sum(s["seconds"] for s in timed), 1)
        quick = [s for s in timed if "quick" in s["labels"]]
        totals["quick_suites"] = len(quick)
        totals["quick_seconds"] = round(sum(s["seconds"] for s in quick), 1)
    if args.json:
        print(json.dumps({"totals": totals, "suites": suites}))
        return
    order = sorted(suites, key=lambda s: -(s["seconds"] or 0)) if args.times else suites
    print(f"{'suite':32} {'seconds':>8} {'functions':>9} {'cases':>6}  labels")
    for s in order:
        seconds = f"{s['seconds']:8.2f}" if s["seconds"] is not None else " " * 8
        functions = s["functions"] if s["functions"] is not None else "-"
        cases = s["cases"] if s["cases"] is not None else "-"
        print(f"{s['name']:32} {seconds} {functions:>9} {cases:>6}  {','.join(s['labels'])}")
    print("\n" + ", ".join(f"{k} {v}" for k, v in totals.items()))


if __name__ == "__main__":
    main()
