#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched-workloads export --kcidb: a run as KCIDB I/O data.

  kcidb.py --kcidb [-o FILE] [--origin NAME] [--checkout-id ID]
           [--build-id ID] [--tests-only] [--log-url URL] RESULTS

KernelCI's common database (KCIDB) takes results as JSON of the schema
kcidb-io defines; this writes one, of schema version 5.3 (the latest in
kcidb-io, kcidb_io/schema/v05_03.py): a checkout and a build of the
kernel that ran (a lab that has submitted them already passes their
ids and --tests-only), and one test per workload and per check:

  path    "sched-workloads.<workload>" and "sched-workloads.<check>",
          the check's name being "<workload>.<entity>.<metric>[.vs-
          baseline]"; KCIDB allows [a-zA-Z0-9_-] between the dots of a
          path, so any other character of an entity is written "_"
  status  pass PASS, fail FAIL, skip SKIP, error ERROR; a workload's is
          the worst of its checks'
  number  the check's value in its unit (us, share, count, ...)
  environment  the machine class, as a comment, and the fingerprint's
          kernel, HZ and preemption model in misc
  comment the check's diagnostic line (what failed against what)

The log URL is the lab's to give (--log-url): the tool knows no place
its logs are served from.

Exit: 0 written, 2 usage, 9 a result directory that is not the tool's.
"""
import argparse
import datetime
import json
import math
import os
import re
import sys

import results

SCHEMA_MAJOR, SCHEMA_MINOR = 5, 3
ROOT_PATH = "sched-workloads"
ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")
PATH_PART_BAD = re.compile(r"[^a-zA-Z0-9_-]")
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "error": "ERROR"}
# KCIDB's priority order, highest first: a summary takes the highest.
PRIORITY = ("FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP")


def kcidb_path(name):
    """A check's name as a KCIDB test path under ROOT_PATH."""
    parts = [PATH_PART_BAD.sub("_", p) or "_" for p in name.split(".")]
    return ".".join([ROOT_PATH] + parts)


def worst(statuses):
    found = [s for s in PRIORITY if s in statuses]
    return found[0] if found else "SKIP"


def start_time(run):
    """When the run began, in UTC: the directory's name gives it in the
    machine's local time; a renamed directory, fingerprint.json's time
    (it is written first)."""
    if run.started:
        local = datetime.datetime.strptime(run.started, "%Y-%m-%dT%H:%M:%S")
        return local.astimezone(datetime.timezone.utc).isoformat()
    ts = os.path.getmtime(os.path.join(run.dir, "fingerprint.json"))
    return datetime.datetime.fromtimestamp(
        int(ts), datetime.timezone.utc).isoformat()


def environment(run):
    fp = run.fingerprint
    misc = {k: fp[k] for k in ("class", "arch", "cpus_online", "model",
                               "virtualized", "kernel_release",
                               "kernel_version", "preempt", "hz", "rtapp")
            if k in fp}
    return {"comment": "machine class %s" % run.machine_class,
            "misc": misc}


def test_object(args, run, run_id, build_id, name, status, check=None):
    t = {"id": "%s:%s.%s" % (args.origin, run_id, name),
         "build_id": build_id, "origin": args.origin,
         "path": kcidb_path(name), "status": status,
         "start_time": start_time(run), "environment": environment(run)}
    if args.log_url:
        t["log_url"] = args.log_url
    if check:
        v = check.get("value")
        if isinstance(v, (int, float)) and math.isfinite(v):
            t["number"] = {"value": v}
            if check.get("unit"):
                t["number"]["unit"] = check["unit"]
        if check.get("diag"):
            t["comment"] = check["diag"].replace("\0", "")
        t["misc"] = {k: check[k] for k in ("kind", "metric", "limit",
                                           "room", "reps", "beyond")
                     if check.get(k) is not None}
    return t


def export(args, run):
    kernel = run.kernel
    run_id = os.path.basename(run.dir)
    checkout_id = args.checkout_id or "%s:%s" % (args.origin, kernel)
    build_id = args.build_id or "%s:%s-%s" % (
        args.origin, kernel, run.fingerprint.get("arch", "unknown"))
    doc = {"version": {"major": SCHEMA_MAJOR, "minor": SCHEMA_MINOR}}
    if not args.tests_only:
        doc["checkouts"] = [{
            "id": checkout_id, "origin": args.origin,
            "comment": "the kernel sched-workloads ran on: %s %s" %
            (kernel, run.fingerprint.get("kernel_version", ""))}]
        build = {"id": build_id, "origin": args.origin,
                 "checkout_id": checkout_id,
                 "comment": "kernel %s" % kernel}
        arch = run.fingerprint.get("arch", "")
        if re.match(r"^[a-z0-9_]*$", arch):
            build["architecture"] = arch
        doc["builds"] = [build]
    tests = []
    for w in run.workloads():
        checks = w.verdicts()
        statuses = [STATUS[c["status"]] for c in checks]
        tests.append(test_object(args, run, run_id, build_id, w.name,
                                 worst(statuses)))
        for c, st in zip(checks, statuses):
            tests.append(test_object(args, run, run_id, build_id,
                                     c["name"], st, c))
    doc["tests"] = tests
    return doc


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads export",
        description="A run as KCIDB I/O JSON (schema v%d.%d)." %
        (SCHEMA_MAJOR, SCHEMA_MINOR))
    ap.add_argument("--kcidb", action="store_true", required=True,
                    help="the format (the only one)")
    ap.add_argument("results", metavar="RESULTS")
    ap.add_argument("-o", "--output", help="write here, not to stdout")
    ap.add_argument("--origin", default="sched_workloads",
                    help="the CI system submitting: [a-z0-9_]+ (default "
                    "%(default)s)")
    ap.add_argument("--checkout-id", help="the lab's checkout id "
                    "(default <origin>:<kernel release>)")
    ap.add_argument("--build-id", help="the lab's build id (default "
                    "<origin>:<kernel release>-<arch>)")
    ap.add_argument("--tests-only", action="store_true",
                    help="no checkout or build: the lab sent them")
    ap.add_argument("--log-url", help="where the lab serves the run's log")
    args = ap.parse_args(argv)
    if not ORIGIN_RE.match(args.origin):
        ap.error("--origin: [a-z0-9_]+, not \"%s\"" % args.origin)
    for opt in ("checkout_id", "build_id"):
        v = getattr(args, opt)
        if v is not None and not v.startswith(args.origin + ":"):
            ap.error("--%s: \"<origin>:...\" (%s:...), not \"%s\"" %
                     (opt.replace("_", "-"), args.origin, v))
    return args


def main(argv):
    args = parse_args(argv)
    try:
        doc = export(args, results.Run(args.results))
    except results.ResultError as e:
        print("export: %s" % e, file=sys.stderr)
        return results.EXIT_BAD_RESULTS
    text = json.dumps(doc, indent=1) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return results.EXIT_PASS


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv[1:]))
