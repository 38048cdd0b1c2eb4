# SPDX-License-Identifier: GPL-2.0
"""The CPU topologies of "sched-workloads vm": named presets, QEMU's
options for each, and what each promises of the guest's scheduling
domains, checked on what the guest read of them.

    flat<N>   N CPUs, one core each, one LLC   (--cpus N: flat<N>)
    smt2x2    4 CPUs: 2 cores x 2 SMT threads
    numa2x4   8 CPUs: 2 sockets of 4 cores, a NUMA node each

A promise is a set of sched-domain flags that must show at some level of
every CPU, and a set that must show at none: SD_SHARE_CPUCAPACITY is
the SMT level, SD_NUMA a NUMA level, the last-level cache's flag a level
whose CPUs share a cache (MC: where select_idle_sibling() looks for an
idle CPU). Level names have changed across kernel versions (SMT, CLS,
MC, DIE, PKG), and so has one flag: the cache's, SD_SHARE_PKG_RESOURCES
until 6.10, SD_SHARE_LLC since; a promise names a flag by each of its
names.
"""
import re

SMT, NUMA = ("SD_SHARE_CPUCAPACITY",), ("SD_NUMA",)
LLC = ("SD_SHARE_PKG_RESOURCES", "SD_SHARE_LLC")


class Preset:
    def __init__(self, name, cpus, smp, nodes, needs, forbids):
        self.name, self.cpus, self.smp, self.nodes = name, cpus, smp, nodes
        self.needs, self.forbids = needs, forbids

    def qemu_args(self, memory_mb):
        """-smp, and a memory node per NUMA node (@memory_mb split)."""
        args = ["-smp", self.smp]
        if self.nodes > 1:
            per = self.cpus // self.nodes
            for n in range(self.nodes):
                args += ["-object", "memory-backend-ram,id=mem%d,size=%dM"
                         % (n, memory_mb // self.nodes),
                         "-numa", "node,nodeid=%d,cpus=%d-%d,memdev=mem%d"
                         % (n, n * per, (n + 1) * per - 1, n)]
        return args


def flat(cpus):
    # one CPU has no domain at all
    return Preset("flat%d" % cpus, cpus,
                  "%d,sockets=1,cores=%d,threads=1" % (cpus, cpus), 1,
                  (LLC,) if cpus > 1 else (), (SMT, NUMA))


PRESETS = {p.name: p for p in (
    flat(2),
    Preset("smt2x2", 4, "4,sockets=1,cores=2,threads=2", 1, (SMT, LLC),
           (NUMA,)),
    Preset("numa2x4", 8, "8,sockets=2,cores=4,threads=1", 2, (NUMA, LLC),
           (SMT,)),
)}


# The preset a workload's "topology" is judged in (its baselines', its
# breaker's CPU names).
FOR_WORKLOAD_TOPOLOGY = {"smt": "smt2x2", "numa": "numa2x4"}


def preset(name):
    """The Preset called @name (flat<N> for any N), or None."""
    m = re.fullmatch(r"flat([1-9][0-9]?)", name)
    return PRESETS.get(name) or (flat(int(m.group(1))) if m else None)


def parse_domains(text):
    """domains.txt ("cpu0 domain0 MC SD_...") as {cpu: [(name, flags)]},
    levels bottom up."""
    cpus = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0].startswith("cpu") and \
                f[1].startswith("domain"):
            cpus.setdefault(f[0], []).append((f[2], set(f[3:])))
    return cpus


def broken_promise(p, domains_text, cpus_online):
    """Why the guest's topology is not what Preset @p promised, or
    None."""
    if cpus_online != p.cpus:
        return "%d CPUs online, %d promised" % (cpus_online, p.cpus)
    cpus = parse_domains(domains_text)
    if p.needs and len(cpus) != p.cpus:
        return ("scheduling domains of %d CPUs read (sched_verbose and "
                "debugfs needed), %d promised" % (len(cpus), p.cpus))
    for cpu, levels in sorted(cpus.items()):
        flags = set().union(*(f for _, f in levels))
        names = "/".join(n for n, _ in levels)
        for need in p.needs:
            if not flags & set(need):
                return "%s has no %s level (its domains: %s)" % (
                    cpu, "/".join(need), names)
        for forbid in p.forbids:
            if flags & set(forbid):
                return "%s has a %s level (its domains: %s)" % (
                    cpu, "/".join(forbid), names)
    return None
