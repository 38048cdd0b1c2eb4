# SPDX-License-Identifier: GPL-2.0
"""Breakers: a workload run with the property it guards broken on purpose.

A breaker is one JSON file, tests/breakers/<workload>.json:

  "workload"     the workload's name (workloads/<name>.json)
  "how"          what is broken, and why that must fail the checks
  "patch"        {"dotted.path": value}: set in the workload (null
                 deletes); the run's side is broken, never the checks
  "cgroup"       {"cpu controller file": value}: the run goes in a
                 cgroup of the cgroup v1 cpu controller set so
  "expect_fail"  the results ("<workload>.<entity>.<metric>") that must
                 then fail

tests/test_properties.py runs every breaker of the battery;
contribute.py drafts and runs the breaker of a new workload.
"""
import copy
import json
import os
import subprocess

CGROUP_ROOT = "/sys/fs/cgroup/cpu"


def load_workload(binary, path):
    """A workload file as a dict, read as the tool reads it (rt-app's
    grammar allows /* */ comments; json does not): "check --json"."""
    r = subprocess.run([binary, "check", "--json", path],
                       capture_output=True, text=True)
    if r.returncode:
        raise ValueError("%s: %s" % (path, r.stderr.strip()))
    return json.loads(r.stdout)


def patched(workload, patch):
    """A copy of @workload with a breaker's "patch" applied."""
    w = copy.deepcopy(workload)
    for path, value in (patch or {}).items():
        keys = path.split(".")
        obj = w
        for k in keys[:-1]:
            obj = obj[k]
        if value is None:
            del obj[keys[-1]]
        else:
            obj[keys[-1]] = value
    return w


def run_broken(binary, workload_path, spec, tmp, results, env=None,
               timeout=600):
    """One repetition of the workload at @workload_path broken as @spec
    says, without baselines (tmp has none): the CompletedProcess of
    "sched-workloads run". The cgroup, if any, is removed after."""
    path = os.path.join(tmp, spec["workload"] + ".json")
    with open(path, "w") as f:
        json.dump(patched(load_workload(binary, workload_path),
                          spec.get("patch")), f)
    argv = [binary, "run", "-n", "1", "-B", tmp, "-r", results, path]
    group = None
    if spec.get("cgroup"):
        group = os.path.join(CGROUP_ROOT, "sw-break-%d" % os.getpid())
        os.mkdir(group)
        for name, value in spec["cgroup"].items():
            with open(os.path.join(group, name), "w") as f:
                f.write(str(value))
        argv = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"',
                group] + argv
    try:
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout, env=env)
    finally:
        if group:
            os.rmdir(group)
