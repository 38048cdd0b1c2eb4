#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""From a program that misbehaves to a reproducer to send, in one command.

  sched-workloads contribute [options] NAME -- COMMAND [ARG...]
  sched-workloads contribute [options] --trace TRACE.dat NAME

The steps, each printed as it runs, each the tool's own command:

  1 record       "sched-workloads record" traces COMMAND (with --trace:
                 an earlier recording, record.json beside it if any)
  2 synthesize   workloads/NAME.json from the chosen threads (--comm,
                 --pid, --tree; default: every thread of the recording)
  3 check        the file against rt-app 1.0's grammar and its verdict
                 block
  4 fidelity     the copy run once and compared with the trace, task by
                 task
  5 breaker      tests/breakers/NAME.json, a draft: a SCHED_FIFO task
                 per CPU above every task of the workload, 9 ms in every
                 10, which the draft checks (each task's CPU share and
                 wakeup latency) must not survive
  6 baseline     baselines/<class>/NAME.json, recorded on this machine
  7 battery      the workload run as the battery runs it, against it
  8 broken       the breaker run: the results it names must fail

and then the files to "git add". The workload's header comment is the
synthesizer's: say there why the case matters before sending it.

Exit: 0 every step did what it should; 1 the copy is not faithful, the
workload failed in the battery, or the breaker did not break it (each
said); else the exit code of the step that could not run (the tool's:
2 usage, 4 missing prerequisite, 5 bad workload, 7 bad trace, 8 the run
broke).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import breaker
import sw_paths
from facts import EXIT_FAIL, EXIT_PASS, EXIT_USAGE
from ktap_parse import ktap_results

HOG = "breaker_hog"
# SKIPped for other tenants of the machine: no answer, taken again.
BUSY = "# SKIP machine too busy"
BUSY_TRIES = 3


class StepError(Exception):
    """A step that could not run: its message and the exit code."""

    def __init__(self, msg, code):
        super().__init__(msg)
        self.code = code


def say(msg):
    print("contribute: " + msg, flush=True)


def tool(args, binary, capture=True):
    """The tool with @args; its output echoed, then returned."""
    r = subprocess.run([binary] + args, capture_output=capture, text=True)
    if capture:
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        sys.stdout.flush()
    return r


def must(r, what):
    """@r's exit 0, or the step stops the flow with its exit code."""
    if r.returncode:
        raise StepError("%s failed (exit %d)" % (what, r.returncode),
                        r.returncode)


def machine_class(binary):
    r = subprocess.run([binary, "fingerprint"], capture_output=True,
                       text=True)
    must(r, "fingerprint")
    return json.loads(r.stdout)["class"]


def rt_priority(task, workload):
    """The RT priority of @task, 0 for a fair one; None for DEADLINE."""
    policy = task.get("policy", workload["global"].get("default_policy",
                                                       "SCHED_OTHER"))
    if policy == "SCHED_DEADLINE":
        return None
    if policy in ("SCHED_FIFO", "SCHED_RR"):
        return task.get("priority", 10)
    return 0


def draft_breaker(name, workload):
    """The breaker spec of a synthesized @workload (breaker.py's format).

    A SCHED_FIFO task per CPU one priority above every task of the
    workload, running 9 ms in every 10: the workload's tasks get at most
    a tenth of each CPU and wait up to 9 ms for it. Each task's draft
    wakeup_lat.p90 bound (twice the original's, or 500 us more) must then
    fail, or, for a task that never slept, its cpu_share floor (80% of
    the original's).
    """
    prios = [rt_priority(t, workload) for t in workload["tasks"].values()]
    if None in prios:
        raise StepError("a SCHED_DEADLINE task: no FIFO task outranks it; "
                        "write tests/breakers/%s.json by hand" % name,
                        EXIT_USAGE)
    prio = max(prios) + 1
    if prio > 99:
        raise StepError("a task at SCHED_FIFO 99: no FIFO task outranks "
                        "it; write tests/breakers/%s.json by hand" % name,
                        EXIT_USAGE)
    if HOG in workload["tasks"]:
        raise StepError('the workload has a task named "%s"' % HOG,
                        EXIT_USAGE)
    block = workload["sched-workloads"]
    by_task = {}
    for c in block.get("checks", []):
        if "task" in c:
            by_task.setdefault(c["task"], set()).add(c["metric"])
    expect = []
    for task in workload["tasks"]:
        have = by_task.get(task, set())
        for metric in ("wakeup_lat.p90", "cpu_share"):
            if metric in have:
                expect.append("%s.%s.%s" % (name, task, metric))
                break
    if not expect:
        raise StepError("no task of the workload has a wakeup_lat.p90 or "
                        "cpu_share check for the draft breaker to break",
                        EXIT_USAGE)
    scale = dict(block.get("scale", {}))
    scale["tasks.%s.instance" % HOG] = "cpus"
    return {
        "workload": name,
        "how": "a SCHED_FIFO %d task per CPU (one above every task of the "
               "workload), 9 ms of every 10 on the CPU: each task gets at "
               "most a tenth of a CPU and waits up to 9 ms after a wakeup; "
               "drafted by contribute.py" % prio,
        "patch": {
            "tasks.%s" % HOG: {"policy": "SCHED_FIFO", "priority": prio,
                               "loop": -1, "runtime": 9000, "sleep": 1000},
            "sched-workloads.scale": scale,
        },
        "expect_fail": expect,
    }


def run_breaker(binary, path, spec, work):
    """The breaker's run; the expected results that did not fail."""
    for _ in range(BUSY_TRIES):
        with tempfile.TemporaryDirectory() as tmp:
            r = breaker.run_broken(binary, path, spec, tmp,
                                   os.path.join(work, "broken"))
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if BUSY not in r.stdout:
            break
    if r.returncode not in (EXIT_PASS, EXIT_FAIL):
        raise StepError("the breaker's run could not run (exit %d)" %
                        r.returncode, r.returncode)
    got = {name: (ok, d) for _, ok, name, d in ktap_results(r.stdout)}
    return [n for n in spec["expect_fail"]
            if n not in got or got[n][0] or "SKIP" in got[n][1]]


def git_paths(paths):
    """@paths relative to the top of their git tree, if they are in one."""
    r = subprocess.run(["git", "-C", os.path.dirname(paths[0]), "rev-parse",
                        "--show-toplevel"], capture_output=True, text=True)
    top = r.stdout.strip() if r.returncode == 0 else None
    return [os.path.relpath(p, top) if top else p for p in paths]


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="sched-workloads contribute",
        description="Record a program, make an rt-app reproducer of it "
                    "with its checks, breaker and baseline, and run it.",
        epilog="Everything after -- is the command to trace.")
    p.add_argument("name", metavar="NAME",
                   help="the workload's name: lower case, digits, '-'")
    p.add_argument("--trace", metavar="TRACE.dat",
                   help="an earlier recording instead of a command")
    p.add_argument("--comm", metavar="GLOB", action="append", default=[],
                   help="threads whose comm matches (synthesize -t)")
    p.add_argument("--pid", metavar="PID", action="append", default=[],
                   help="the thread PID (synthesize -p)")
    p.add_argument("--tree", metavar="PID",
                   help="the process tree of PID (synthesize -T)")
    p.add_argument("--dest", metavar="DIR", default=sw_paths.COLLECTION,
                   help="the collection written into (default: this one)")
    p.add_argument("--work", metavar="DIR",
                   help="recordings and results (default: "
                        "results/contribute-NAME)")
    p.add_argument("--binary", metavar="FILE",
                   default=sw_paths.binary())
    p.add_argument("--force", action="store_true",
                   help="overwrite the files of an existing NAME")
    if "--" in argv:
        i = argv.index("--")
        args, command = p.parse_args(argv[:i]), argv[i + 1:]
    else:
        args, command = p.parse_args(argv), []
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", args.name):
        p.error('NAME "%s": lower case letters, digits and single "-"'
                % args.name)
    if bool(command) == bool(args.trace):
        p.error("give a command after -- or --trace, one of the two")
    if args.trace and not os.path.isfile(args.trace):
        p.error("%s: no such trace" % args.trace)
    args.command = command
    return args


def contribute(args):
    dest, name, sw = os.path.abspath(args.dest), args.name, args.binary
    work = os.path.abspath(args.work or os.path.join(
        "results", "contribute-" + name))
    wl = os.path.join(dest, "workloads", name + ".json")
    brk = os.path.join(dest, "tests", "breakers", name + ".json")
    cls = machine_class(sw)
    base_dir = os.path.join(dest, "baselines")
    base = os.path.join(base_dir, cls, name + ".json")
    for path in (wl, brk, base):
        if os.path.exists(path) and not args.force:
            raise StepError("%s exists (--force overwrites it)" % path,
                            EXIT_USAGE)
    os.makedirs(work, exist_ok=True)
    for d in (wl, brk):
        os.makedirs(os.path.dirname(d), exist_ok=True)
    problems = []

    trace = args.trace
    if args.command:
        say("1 record: %s" % " ".join(args.command))
        rec = os.path.join(work, "record")
        shutil.rmtree(rec, ignore_errors=True)
        must(tool(["record", "-o", rec, "--"] + args.command, sw),
             "record")
        trace = os.path.join(rec, "trace.dat")
    else:
        say("1 record: the recording %s" % trace)

    say("2 synthesize: %s" % wl)
    pick = [a for g in args.comm for a in ("-t", g)]
    pick += [a for p in args.pid for a in ("-p", p)]
    pick += ["-T", args.tree] if args.tree else []
    must(tool(["synthesize", "-o", wl, "-n", name] + pick + [trace], sw),
         "synthesize")

    say("3 check: %s" % wl)
    must(tool(["check", "-m", wl], sw), "check")

    say("4 fidelity: the copy against %s" % trace)
    r = tool(["fidelity", "-r", os.path.join(work, "fidelity"), trace, wl],
             sw)
    if r.returncode == EXIT_FAIL:
        problems.append("the copy is not faithful to its original "
                        "(fidelity, above)")
    else:
        must(r, "fidelity")

    say("5 breaker: %s" % brk)
    spec = draft_breaker(name, breaker.load_workload(sw, wl))
    with open(brk, "w") as f:
        json.dump(spec, f, indent="\t")
        f.write("\n")
    say("  %s; must fail: %s" % (spec["how"], ", ".join(spec["expect_fail"])))

    say("6 baseline: %s" % base)
    must(tool(["baseline", "-B", base_dir, "-r",
               os.path.join(work, "baseline"), wl], sw, capture=False),
         "baseline")

    say("7 battery: %s against its baseline" % name)
    r = tool(["run", "-B", base_dir, "-r", os.path.join(work, "run"), wl],
             sw, capture=False)
    if r.returncode == EXIT_FAIL:
        problems.append("the workload failed in the battery (above)")
    else:
        must(r, "the battery run")

    say("8 broken: the breaker's run")
    survived = run_breaker(sw, wl, spec, work)
    if survived:
        problems.append("the breaker did not break %s: edit %s"
                        % (", ".join(survived), brk))
    else:
        say("  the breaker failed every result it names")

    files = git_paths([wl, brk, base])
    say("the reproducer, its breaker and this class's baseline:")
    print("  git add " + " \\\n          ".join(files))
    say("before sending: say in %s's header why the case matters"
        % os.path.basename(wl))
    for p in problems:
        say("NOT READY: " + p)
    return EXIT_FAIL if problems else EXIT_PASS


def main(argv):
    args = parse_args(argv)
    try:
        return contribute(args)
    except StepError as e:
        say("stopped: %s" % e)
        return e.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
