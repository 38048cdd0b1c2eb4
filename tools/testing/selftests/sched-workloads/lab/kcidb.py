#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched-workloads export --kcidb: a run as KCIDB I/O data.

  export --kcidb [-o FILE] [--origin NAME] [--checkout-id ID]
         [--build-id ID] [--tests-only] [--run-id ID] [--log-url URL]
         RESULTS

KernelCI's common database (KCIDB) takes results as JSON of the schema
that kcidb-io defines. This writes one run of schema version 5.3, the
latest kcidb-io has (kcidb_io/schema/v05_03.py, LATEST = V5_3): a
checkout and a build of the kernel that ran, and tests.

  tests   "sched-workloads" for the run, "sched-workloads.<workload>"
          for each workload and "sched-workloads.<check>" for each
          check, the check's name being "<workload>.<entity>.<metric>
          [.vs-baseline]" (a metric such as wu_lat.p50 adds levels); a
          path allows [a-zA-Z0-9_-] between its dots, so any other
          character (and an empty level) is written "_"
  status  pass PASS, fail FAIL, skip SKIP, error ERROR; a workload's
          and the run's are the worst of their checks' in KCIDB's order
          (FAIL, ERROR, MISS, PASS, DONE, SKIP)
  number  the check's value in its unit (us, share, count, loops/us),
          no prefix: values stay those of verdicts.json; none when the
          value was not measured or the check was skipped
  comment the check's diagnostic line, also the log excerpt of a FAIL
          or an ERROR; its kind, metric, limit, room, reps, beyond and
          change in misc
  environment  "machine class <class>" as its comment, the fingerprint
          (arch, CPUs, kernel, preemption, HZ, rt-app) in misc
  start_time   the run's start (its directory's name, the machine's
          local time, converted to UTC here); the run's wall time
          (time.json) as the run test's duration

Ids are "<origin>:...": the checkout "<origin>:<release>-<hash>" and the
build "<origin>:<release>-<hash>-<arch>", the hash being of the kernel's
release and version strings (uname -r, -v), so that every build of a
kernel has its own and a run of the same build the same; tests
"<origin>:<run>.<check>", <run> the result directory's name unless
--run-id gives one (boards of one lab starting the same kernel in the
same second need it). A lab that has sent its checkout and build passes
their ids and --tests-only. The log URL is the lab's to give: the tool
knows no place its logs are served from.

Exit: 0 written, 2 usage (or FILE not writable), 9 a result directory
that is not the tool's (the message names the file).
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import re
import sys
import urllib.parse

import facts
import results

SCHEMA_MAJOR, SCHEMA_MINOR = 5, 3
SUITE = "sched-workloads"
ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")
ID_RE = re.compile(r"^[a-z0-9_]+:")
ARCH_RE = re.compile(r"^[a-z0-9_]*$")
PATH_PART_BAD = re.compile(r"[^a-zA-Z0-9_-]")
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "error": "ERROR"}
# a workload's state in index.json, when it has no verdicts: never
# finished ("pending": the run was cut) is a test that is missing
STATE = dict(STATUS, pending="MISS", unknown="MISS")
# KCIDB's priority order, highest first: a summary takes the highest.
PRIORITY = ("FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP")
EXCERPT_MAX = 16384
CHECK_MISC = ("kind", "metric", "limit", "room", "reps", "beyond", "change")
ENV_MISC = ("class", "arch", "cpus_online", "topology", "model",
            "virtualized", "kernel_release", "kernel_version", "preempt",
            "hz", "rtapp")


def kcidb_path(name):
    """A check's (or workload's) name as a KCIDB test path under SUITE."""
    parts = [PATH_PART_BAD.sub("_", p) or "_" for p in name.split(".")]
    return ".".join([SUITE] + parts)


def worst(statuses):
    """The highest-priority status of @statuses; SKIP when none."""
    found = [s for s in PRIORITY if s in statuses]
    return found[0] if found else "SKIP"


def is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def text(s):
    """@s as KCIDB takes free text: no NUL."""
    return s.replace("\0", "")


def start_time(run):
    """When the run began, in UTC: the directory's name gives it in the
    machine's local time; a renamed directory, fingerprint.json's time
    (it is written first)."""
    if run.started:
        local = datetime.datetime.strptime(run.started, "%Y-%m-%dT%H:%M:%S")
        return local.astimezone(datetime.timezone.utc).isoformat()
    ts = os.path.getmtime(run.path("fingerprint"))
    return datetime.datetime.fromtimestamp(
        int(ts), datetime.timezone.utc).isoformat()


def kernel_ids(origin, fp):
    """(checkout id, build id) of the kernel @fp ran, by default."""
    release = str(fp.get("kernel_release", "unknown"))
    version = str(fp.get("kernel_version", ""))
    h = hashlib.sha256(("%s\n%s" % (release, version)).encode())
    checkout = "%s:%s-%s" % (origin, release, h.hexdigest()[:8])
    return checkout, "%s-%s" % (checkout, fp.get("arch", "unknown"))


def environment(run):
    fp = run.fingerprint
    return {"comment": text("machine class %s" % run.machine_class),
            "misc": {k: fp[k] for k in ENV_MISC if k in fp}}


class Export:
    """What every object of one export shares."""

    def __init__(self, args, run):
        self.args, self.run = args, run
        self.origin = args.origin
        self.run_id = args.run_id or os.path.basename(run.dir)
        checkout, build = kernel_ids(self.origin, run.fingerprint)
        self.checkout_id = args.checkout_id or checkout
        self.build_id = args.build_id or build
        self.start = start_time(run)
        self.env = environment(run)

    def test(self, name, path, status):
        t = {"id": "%s:%s" % (self.origin, self.run_id),
             "build_id": self.build_id, "origin": self.origin,
             "path": path, "status": status, "start_time": self.start,
             "environment": self.env}
        if name:
            t["id"] += "." + name
        if self.args.log_url:
            t["log_url"] = self.args.log_url
        return t

    def check(self, c):
        status = STATUS[c["status"]]
        t = self.test(c["name"], kcidb_path(c["name"]), status)
        if status != "SKIP" and is_number(c.get("value")):
            t["number"] = {"value": c["value"]}
            if isinstance(c.get("unit"), str) and c["unit"]:
                t["number"]["unit"] = text(c["unit"])
        if isinstance(c.get("diag"), str) and c["diag"]:
            t["comment"] = text(c["diag"])
            if status in ("FAIL", "ERROR"):
                t["log_excerpt"] = t["comment"][:EXCERPT_MAX]
        misc = {k: c[k] for k in CHECK_MISC
                if isinstance(c.get(k), (str, int, float))}
        if misc:
            t["misc"] = misc
        return t

    def workload(self, w, checks, statuses):
        """The workload's test: the worst of its checks; without checks
        (skipped before its first round, broken, cut), its state, with
        the reason and who kept the machine busy."""
        if not checks:
            t = self.test(w.name, kcidb_path(w.name),
                          STATE.get(w.state, "MISS"))
            t["comment"] = text("%s: %s%s" % (w.name, w.state, ": " +
                                              w.reason if w.reason else ""))
            if w.neighbours:
                t["misc"] = {"neighbours": w.neighbours}
            if t["status"] == "ERROR":
                t["log_excerpt"] = t["comment"][:EXCERPT_MAX]
            return t
        status = worst(statuses)
        if w.state == "error":
            status = worst([status, "ERROR"])
        t = self.test(w.name, kcidb_path(w.name), status)
        counts = ", ".join("%d %s" % (statuses.count(s), s)
                           for s in PRIORITY if s in statuses)
        t["comment"] = text("%s: %d checks: %s" %
                            (w.name, len(checks), counts or "none"))
        return t

    def suite(self, statuses, workloads):
        """The run's test: the worst of every check and every workload;
        a run that left workloads unjudged is not a plain PASS but DONE,
        and says which."""
        names = [w["path"][len(SUITE) + 1:] for w in workloads]
        unjudged = [n for n, w in zip(names, workloads)
                    if w["status"] in ("SKIP", "MISS")]
        status = worst(statuses + [w["status"] for w in workloads])
        if status == "PASS" and unjudged:
            status = "DONE"
        t = self.test(None, SUITE, status)
        t["comment"] = text("%d workloads (%s), %d checks%s" % (
            len(names), os.path.basename(self.run.dir), len(statuses),
            "; not judged: " + ", ".join(unjudged) if unjudged else ""))
        wall = self.run.cost().get("wall_s")
        if is_number(wall) and wall >= 0:
            t["duration"] = wall
        t["misc"] = {"results": os.path.basename(self.run.dir),
                     "workloads": names, "not_judged": unjudged}
        return t

    def checkout(self):
        fp = self.run.fingerprint
        release = str(fp.get("kernel_release", "unknown"))
        return {"id": self.checkout_id, "origin": self.origin,
                "comment": text("the kernel sched-workloads ran on: %s" %
                                release),
                "misc": {k: fp[k] for k in ("kernel_release",
                                            "kernel_version") if k in fp}}

    def build(self):
        fp = self.run.fingerprint
        b = {"id": self.build_id, "origin": self.origin,
             "checkout_id": self.checkout_id, "status": "PASS",
             "comment": text("kernel %s %s (it booted and ran the "
                             "battery)" % (fp.get("kernel_release", ""),
                                           fp.get("kernel_version", ""))),
             "misc": {k: fp[k] for k in ("kernel_release", "kernel_version",
                                         "preempt", "hz") if k in fp}}
        arch = fp.get("arch")
        if isinstance(arch, str) and ARCH_RE.match(arch):
            b["architecture"] = arch
        return b

    def document(self):
        doc = {"version": {"major": SCHEMA_MAJOR, "minor": SCHEMA_MINOR}}
        if not self.args.tests_only:
            doc["checkouts"] = [self.checkout()]
            doc["builds"] = [self.build()]
        tests, every, workloads = [], [], []
        for w in self.run.every():
            checks = w.verdicts() if w.judged else []
            statuses = [STATUS[c["status"]] for c in checks]
            workloads.append(self.workload(w, checks, statuses))
            tests.append(workloads[-1])
            tests.extend(self.check(c) for c in checks)
            every.extend(statuses)
        doc["tests"] = [self.suite(every, workloads)] + tests
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
    ap.add_argument("--checkout-id", help="the lab's checkout id, "
                    "\"<origin>:...\" (default <origin>:<release>-<hash>)")
    ap.add_argument("--build-id", help="the lab's build id, "
                    "\"<origin>:...\" (default <checkout id>-<arch>)")
    ap.add_argument("--tests-only", action="store_true",
                    help="no checkout or build: the lab sent them")
    ap.add_argument("--run-id", help="what makes the tests' ids unique "
                    "(default: the result directory's name)")
    ap.add_argument("--log-url", help="where the lab serves the run's log")
    args = ap.parse_args(argv)
    if not ORIGIN_RE.match(args.origin):
        ap.error("--origin: [a-z0-9_]+, not \"%s\"" % args.origin)
    for opt in ("checkout_id", "build_id"):
        v = getattr(args, opt)
        if v is not None and not ID_RE.match(v):
            ap.error("--%s: \"<origin>:...\" with an origin of [a-z0-9_]+, "
                     "not \"%s\"" % (opt.replace("_", "-"), v))
    if args.run_id is not None and (not args.run_id or "\0" in args.run_id):
        ap.error("--run-id: empty")
    if args.log_url is not None:
        u = urllib.parse.urlsplit(args.log_url)
        if not u.scheme or not u.netloc:
            ap.error("--log-url: an absolute URL, not \"%s\"" %
                     args.log_url)
    return args


def main(argv):
    args = parse_args(argv)
    try:
        doc = Export(args, results.Run(args.results)).document()
    except results.ResultError as e:
        print("export: %s" % e, file=sys.stderr)
        return facts.EXIT_BAD_RESULTS
    out = json.dumps(doc, indent=1) + "\n"
    if not args.output:
        sys.stdout.write(out)
        return facts.EXIT_PASS
    try:
        with open(args.output, "w") as f:
            f.write(out)
    except OSError as e:
        print("export: %s: %s" % (args.output, e.strerror), file=sys.stderr)
        return facts.EXIT_USAGE
    return facts.EXIT_PASS


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
