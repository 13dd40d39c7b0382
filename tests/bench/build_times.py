#!/usr/bin/env python3
"""Where a build's time went, from Ninja's log (.ninja_log in the build folder).

Prints the wall time of the last build, the compile time summed per target and per source
folder, and the slowest steps. Run it after a build from scratch (rm -rf the folder, or
`ninja -t clean`) with ccache off (CCACHE_DISABLE=1), so that every step is a real compile:

    tests/bench/build_times.py build/ci [--top 25] [--json]

The presets build with Ninja; a Makefile build has no such log.
"""
import argparse
import collections
import json
import os
import re
import sys


def last_build(log_path):
    """The steps of the newest build in the log: (start_ms, end_ms, output) per step."""
    with open(log_path) as f:
        header = f.readline()
        if not header.startswith("# ninja log v"):
            sys.exit(f"{log_path}: not a Ninja log (first line {header.strip()!r})")
        rows = []
        for number, line in enumerate(f, start=2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                sys.exit(f"{log_path}:{number}: expected 5 tab-separated fields")
            rows.append((int(fields[0]), int(fields[1]), fields[3], fields[4]))
    # Ninja appends a row as each step ends, so within one build the end times only grow; its
    # clock restarts with every build, so the last build begins where an end time drops.
    begin = 0
    for i in range(1, len(rows)):
        if rows[i][1] < rows[i - 1][1]:
            begin = i
    # A step with several outputs (moc's timestamp and its source) has a row for each: the same
    # times and command hash. Keep one, under its first output.
    steps = {}
    for start, end, output, command in rows[begin:]:
        steps.setdefault((start, end, command), output)
    return [(s, e, o) for (s, e, _), o in steps.items()]


def target_of(output):
    """CMake puts a target's objects under CMakeFiles/<target>.dir/; links name the file."""
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", output)
    if m:
        return m.group(1)
    return "(link/other) " + os.path.basename(output)


def folder_of(output):
    m = re.search(r"CMakeFiles/[^/]+\.dir/(.+)$", output)
    if not m:
        return "(link/other)"
    path = m.group(1)
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def kind_of(output):
    if output.endswith(".cu.o"):
        return "CUDA compile"
    if "mocs_compilation" in output or "qrc_" in output:
        return "moc/rcc compile"
    if output.endswith((".gch", ".pch", "cmake_pch.hxx.cxx.o")):
        return "precompiled header"
    if output.endswith(".o"):
        return "C++ compile"
    if "autogen" in output:
        return "moc/rcc generation"
    return "link and other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", help="the build folder (holds .ninja_log)")
    parser.add_argument("--top", type=int, default=20, help="how many of the slowest to list")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    args = parser.parse_args()

    steps = last_build(os.path.join(args.build, ".ninja_log"))
    if not steps:
        sys.exit("the log holds no build")
    wall_s = (max(e for _, e, _ in steps) - min(s for s, _, _ in steps)) / 1000
    total_s = sum(e - s for s, e, _ in steps) / 1000

    def summed(key):
        sums = collections.Counter()
        for s, e, o in steps:
            sums[key(o)] += (e - s) / 1000
        return sums.most_common()

    slowest = sorted(((e - s) / 1000, o) for s, e, o in steps)[::-1][: args.top]
    report = {
        "steps": len(steps),
        "wall_s": round(wall_s, 1),
        "step_seconds_summed": round(total_s, 1),
        "by_kind": [(k, round(v, 1)) for k, v in summed(kind_of)],
        "by_target": [(k, round(v, 1)) for k, v in summed(target_of)[: args.top]],
        "by_folder": [(k, round(v, 1)) for k, v in summed(folder_of)[: args.top]],
        "slowest_steps": [(o, round(t, 1)) for t, o in slowest],
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"{report['steps']} steps, {wall_s:.0f} s of wall time, {total_s:.0f} s of step time "
          f"summed ({total_s / max(wall_s, 1e-9):.2f} steps at once on average)")
    for title, key in (("by kind", "by_kind"), ("by target", "by_target"),
                       ("by source folder", "by_folder"), ("slowest steps", "slowest_steps")):
        print(f"\n{title} (seconds):")
        for name, seconds in report[key]:
            print(f"  {seconds:8.1f}  {name}")


if __name__ == "__main__":
    main()
