# SPDX-License-Identifier: GPL-2.0
"""The scheduler's commits between two Debian kernel packages.

A Debian kernel package's changelog lists every upstream stable commit
the package took in, by subject, under the stable release it came with
("New upstream stable update: .../ChangeLog-6.1.191", then "- sched/rt:
Fix race in push_rt_task"), and Debian's own patches as items of their
own. The commits between kernel A and kernel B are the items of B's
changelog in the entries newer than A's version. Of those, the ones of
kernel/sched (subjects "sched/...:" or "sched:", not "net/sched") come
first, then those of the mechanisms around it that move scheduling
numbers (cpusets and cgroups, timers and the tick, idle, cpufreq, RT
locking, RCU, workqueues, IRQ work, smp).
"""
import gzip
import io
import re
import subprocess
import tarfile

HEADER = re.compile(r"^(\S+) \(([^)]+)\) [^;]*;")
# "[ Name ]" lines group the items by who wrote them: not items
WHO = re.compile(r"^\s+\[ .* \]\s*$")
SCHED = re.compile(r"^(sched(/[\w.-]+)?|sched_ext)\s*:", re.I)
NEAR = re.compile(
    r"^(cgroup|cpuset|cpu/hotplug|cpufreq|cpuidle|"
    r"hrtimers?|timers?(/\w+)?|tick(/\w+)?|nohz|posix-timers|"
    r"rtmutex|locking(/\w+)?|rcu(/\w+)?|workqueue|irq_work|smp|"
    r"kthread|psi|sched_clock|clocksource|"
    r"PM: EM|arm64/topology|arch_topology|topology|cpu)\s*[:/]", re.I)


class ChangelogError(Exception):
    pass


class Entry:
    """An entry of a changelog: its source package, version and items
    (a subject each, continuation lines joined)."""

    def __init__(self, source, version):
        self.source, self.version, self.items = source, version, []


def entries(text):
    """The Entries of a Debian changelog's @text, newest first."""
    out, item = [], None

    def end_item():
        if item is not None and out:
            out[-1].items.append(" ".join(item))

    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            end_item()
            item = None
            out.append(Entry(m.group(1), m.group(2)))
            continue
        s = line.strip()
        # a stable release's ChangeLog address heads its commits: no
        # item's continuation
        if (not out or not s or line.startswith(" --") or
                WHO.match(line) or s.startswith(("http://", "https://"))):
            end_item()
            item = None
            continue
        bullet = re.match(r"^\s+[-*+]\s+(.*)$", line)
        if bullet:
            end_item()
            item = [bullet.group(1).strip()]
        elif item is not None:
            item.append(s)
    end_item()
    return out


def comparable(entry):
    """@entry's version as the kernel's own: a signed wrapper's "+N"
    revision is the "-N" of the linux it signs."""
    if "signed" in entry.source:
        return re.sub(r"\+(\d+)$", r"-\1", entry.version)
    return entry.version


def newer(a, b):
    """Whether Debian version @a is newer than @b (dpkg's order)."""
    return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]
                          ).returncode == 0


def between(text, old):
    """The subjects of the entries of changelog @text newer than version
    @old, newest first, without the lines that are no commit: the stable
    update's headline, the signing and ABI notes. An
    error when the changelog does not go back to @old: its kernels are
    not one series."""
    items, reached = [], False
    for e in entries(text):
        if not newer(comparable(e), old):
            reached = True
            break
        items += [i for i in e.items if not NOT_COMMITS.match(i)]
    if not reached:
        raise ChangelogError("the changelog does not go back to %s" % old)
    return items


NOT_COMMITS = re.compile(
    r"^(New upstream (stable )?(update|release)|"
    r"Sign kernel from|Bump ABI|Update to|\[rt\] Update to|"
    r"d/|debian/|Set ABI)", re.I)


def split(items):
    """(the scheduler's, those around it) of commit subjects @items."""
    sched = [i for i in items if SCHED.match(i)]
    near = [i for i in items if not SCHED.match(i) and NEAR.match(i)]
    return sched, near


def of_deb(deb):
    """The changelog's text in the Debian package @deb (its own doc
    directory's changelog.gz or changelog.Debian.gz)."""
    try:
        tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise ChangelogError("%s: not a Debian package (%s)" % (deb, e))
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        names = [n for n in t.getnames()
                 if re.search(r"/usr/share/doc/[^/]+/changelog(\.Debian)?"
                              r"\.gz$", n)]
        if not names:
            raise ChangelogError("%s: no changelog in it" % deb)
        data = t.extractfile(sorted(names)[0]).read()
    return gzip.decompress(data).decode("utf-8", errors="replace")
