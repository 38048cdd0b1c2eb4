# SPDX-License-Identifier: GPL-2.0
"""The arm64 guest's device tree, with the cache its cores share.

QEMU's virt machine describes the CPUs' sockets, clusters and cores
(/cpus/cpu-map) but no cache. A kernel then finds no cache that two CPUs
share: it builds no MC level (SD_SHARE_PKG_RESOURCES, SD_SHARE_LLC since
6.10), select_idle_sibling() has no LLC to look for an idle CPU in, and
placement and balancing mutants go unseen. The guest boots instead on
QEMU's own device tree (dumped by the same command line, so that every
device in it is the machine's) with one unified level-2 cache per
socket, named as "next-level-cache" by each of the socket's CPUs: the
cores of a socket share their last-level cache, as on the machines the
baselines of a real host come from. fdtget and fdtput
(device-tree-compiler) read and edit it.
"""
import shutil
import subprocess

TOOLS = ("fdtget", "fdtput")
PACKAGE = "device-tree-compiler"
# a phandle QEMU never hands out (its own count up from 0x8000)
FIRST_PHANDLE = 0x7f00


class DtbError(Exception):
    """@skip: a tool missing here, not a failure."""

    def __init__(self, msg, skip=False):
        super().__init__(msg)
        self.skip = skip


def missing_tool():
    """What is missing to edit a device tree here, or None."""
    for t in TOOLS:
        if not shutil.which(t):
            return "%s (Debian package %s)" % (t, PACKAGE)
    return None


def _run(*argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        raise DtbError("%s: %s" % (" ".join(argv),
                                   r.stderr.strip() or "exit %d"
                                   % r.returncode))
    return r.stdout


def subnodes(dtb, node):
    return _run("fdtget", "-l", dtb, node).split()


def cpu_phandles(dtb, node):
    """The phandles of the CPUs under cpu-map node @node, at any depth
    (clusters, cores, threads)."""
    found = []
    for child in subnodes(dtb, node):
        path = node + "/" + child
        if child.startswith(("core", "thread")) and \
                "cpu" in _run("fdtget", "-p", dtb, path).split():
            found.append(int(_run("fdtget", "-t", "x", dtb, path, "cpu"),
                             16))
        else:
            found += cpu_phandles(dtb, path)
    return found


def sockets(dtb):
    """{socket node: [CPU phandles]} of the machine's cpu-map."""
    return {s: cpu_phandles(dtb, "/cpus/cpu-map/" + s)
            for s in subnodes(dtb, "/cpus/cpu-map")
            if s.startswith("socket")}


def cpu_nodes(dtb):
    """{phandle: /cpus/cpu@N} of every CPU."""
    nodes = {}
    for n in subnodes(dtb, "/cpus"):
        if n.startswith("cpu@"):
            path = "/cpus/" + n
            nodes[int(_run("fdtget", "-t", "x", dtb, path, "phandle"),
                      16)] = path
    return nodes


def add_socket_caches(dtb):
    """Gives each socket of device tree @dtb (a file, edited in place) an
    L2 cache that all its CPUs name as their next level: {socket: the
    cache's node}."""
    cpus = cpu_nodes(dtb)
    caches = {}
    for i, (socket, phandles) in enumerate(sorted(sockets(dtb).items())):
        if not phandles:
            raise DtbError("%s: cpu-map/%s names no CPU" % (dtb, socket))
        cache = "/cpus/l2-cache-%s" % socket
        handle = "%#x" % (FIRST_PHANDLE + i)
        _run("fdtput", "-c", dtb, cache)
        _run("fdtput", "-t", "s", dtb, cache, "compatible", "cache")
        _run("fdtput", "-t", "u", dtb, cache, "cache-level", "2")
        _run("fdtput", "-t", "s", dtb, cache, "cache-unified", "")
        _run("fdtput", "-t", "x", dtb, cache, "phandle", handle)
        for p in phandles:
            if p not in cpus:
                raise DtbError("%s: cpu-map/%s names phandle %#x, no CPU"
                               % (dtb, socket, p))
            _run("fdtput", "-t", "x", dtb, cpus[p], "next-level-cache",
                 handle)
        caches[socket] = cache
    if not caches:
        raise DtbError("%s: no socket in /cpus/cpu-map" % dtb)
    return caches


def machine_dtb(argv, dtb):
    """QEMU command line @argv with the device tree it would make, and a
    shared cache per socket added, written to @dtb: the same command
    line booting on it."""
    m = argv.index("-machine") + 1
    dump = argv[:m] + [argv[m] + ",dumpdtb=" + dtb] + argv[m + 1:]
    r = subprocess.run(dump, capture_output=True, text=True)
    if r.returncode:
        raise DtbError("QEMU dumping its device tree: %s" %
                       (r.stderr.strip() or "exit %d" % r.returncode))
    add_socket_caches(dtb)
    return argv + ["-dtb", dtb]
