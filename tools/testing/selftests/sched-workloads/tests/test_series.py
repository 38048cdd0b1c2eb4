# SPDX-License-Identifier: GPL-2.0
"""sched-workloads series: the commits between two Debian kernel
packages read off the newer one's changelog (deb_changelog.py), and a
series judged end to end with the guest replaced by synthetic runs
(test_history's: a step injected at a known kernel) and packages built
here with changelogs whose commits are known: the change point named
between the two kernels either side of the step, with the scheduler's
commits of the newer package and only those; a second run of the same
directory runs no kernel again and names the same change."""
import gzip
import importlib.util
import os
import shutil
import subprocess
import tempfile
import unittest
import unittest.mock

import swtest
import deb_changelog
import guest_verdicts
import series
from test_history import STEPPED, make_series, page_changes

CHANGELOG = """\
linux-signed-arm64 (6.1.170+2) bookworm-security; urgency=high

  * Sign kernel from linux 6.1.170-2

  * sched/core: a fix Debian took before upstream

 -- Someone <someone@example.org>  Thu, 26 Nov 2026 18:12:56 +0100

linux (6.1.170-1) bookworm-security; urgency=high

  [ Someone ]
  * New upstream stable update:
    https://www.kernel.org/pub/linux/kernel/v6.x/ChangeLog-6.1.170
    - sched/fair: Fix pelt clock sync when entering idle
    - net/sched: act_api: release all action references on NEWACTION
      failure
    - cpufreq: schedutil: Fix rate limit overflow
    - ext4: fix a thing (CVE-2026-1)
    https://www.kernel.org/pub/linux/kernel/v6.x/ChangeLog-6.1.171
    - timers: Fix the last one

 -- Someone <someone@example.org>  Mon, 16 Nov 2026 11:17:40 +0100

linux (6.1.169-1) bookworm-security; urgency=high

  * New upstream stable update:
    https://www.kernel.org/pub/linux/kernel/v6.x/ChangeLog-6.1.169
    - sched/rt: Skip currently executing CPU in rto_next_cpu()
    - hrtimer: Fix a thing

 -- Someone <someone@example.org>  Mon, 2 Nov 2026 11:17:40 +0100

linux (6.1.168-1) bookworm-security; urgency=high

  * Bump ABI to 47

 -- Someone <someone@example.org>  Mon, 19 Oct 2026 11:17:40 +0100
"""


class TestChangelog(unittest.TestCase):
    def test_entries(self):
        es = deb_changelog.entries(CHANGELOG)
        self.assertEqual([(e.source, e.version) for e in es], [
            ("linux-signed-arm64", "6.1.170+2"), ("linux", "6.1.170-1"),
            ("linux", "6.1.169-1"), ("linux", "6.1.168-1")])
        self.assertEqual(es[1].items, [
            "New upstream stable update:",
            "sched/fair: Fix pelt clock sync when entering idle",
            "net/sched: act_api: release all action references on "
            "NEWACTION failure",
            "cpufreq: schedutil: Fix rate limit overflow",
            "ext4: fix a thing (CVE-2026-1)", "timers: Fix the last one"])

    def test_signed_version(self):
        es = deb_changelog.entries(CHANGELOG)
        self.assertEqual(deb_changelog.comparable(es[0]), "6.1.170-2")
        self.assertEqual(deb_changelog.comparable(es[1]), "6.1.170-1")

    def test_between(self):
        got = deb_changelog.between(CHANGELOG, "6.1.169-1")
        self.assertEqual(got, [
            "sched/core: a fix Debian took before upstream",
            "sched/fair: Fix pelt clock sync when entering idle",
            "net/sched: act_api: release all action references on "
            "NEWACTION failure",
            "cpufreq: schedutil: Fix rate limit overflow",
            "ext4: fix a thing (CVE-2026-1)", "timers: Fix the last one"])
        # the signed twin of the same linux: only Debian's own fix
        self.assertEqual(deb_changelog.between(CHANGELOG, "6.1.170-1"),
                         ["sched/core: a fix Debian took before upstream"])
        self.assertEqual(deb_changelog.between(CHANGELOG, "6.1.170-2"), [])

    def test_not_one_series(self):
        with self.assertRaisesRegex(deb_changelog.ChangelogError,
                                    "does not go back to 6.1.100-1"):
            deb_changelog.between(CHANGELOG, "6.1.100-1")

    def test_split(self):
        sched, near = deb_changelog.split(
            deb_changelog.between(CHANGELOG, "6.1.168-1"))
        self.assertEqual(sched, [
            "sched/core: a fix Debian took before upstream",
            "sched/fair: Fix pelt clock sync when entering idle",
            "sched/rt: Skip currently executing CPU in rto_next_cpu()"])
        self.assertEqual(near, ["cpufreq: schedutil: Fix rate limit overflow",
                                "timers: Fix the last one",
                                "hrtimer: Fix a thing"])


def build_deb(top, name, version, changelog):
    """A .deb of package @name at @version holding @changelog."""
    root = os.path.join(top, "%s-%s" % (name, version))
    doc = os.path.join(root, "usr", "share", "doc", name)
    os.makedirs(doc)
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write("Package: %s\nVersion: %s\nArchitecture: arm64\n"
                "Maintainer: Someone <someone@example.org>\n"
                "Description: a kernel of a test series\n" % (name, version))
    with gzip.open(os.path.join(doc, "changelog.gz"), "wt") as f:
        f.write(changelog)
    deb = os.path.join(top, "%s_%s_arm64.deb" % (name, version))
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", root, deb],
                   check=True, capture_output=True)
    shutil.rmtree(root)
    return deb


class TestDeb(unittest.TestCase):
    def test_changelog_of_a_package(self):
        with tempfile.TemporaryDirectory() as tmp:
            deb = build_deb(tmp, "linux-image-x", "6.1.170-2", CHANGELOG)
            self.assertEqual(deb_changelog.of_deb(deb), CHANGELOG)

    def test_not_a_package(self):
        with tempfile.TemporaryDirectory() as tmp:
            junk = os.path.join(tmp, "junk.deb")
            with open(junk, "w") as f:
                f.write("not a package\n")
            with self.assertRaisesRegex(deb_changelog.ChangelogError,
                                        "junk.deb: not a Debian package"):
                deb_changelog.of_deb(junk)


KERNELS = 10
STEP_AT = 5     # 0-based: the sixth kernel is the first with the step


def entry(k):
    """Kernel @k's changelog entry: one scheduler commit each, and at
    the step a second and one around the scheduler."""
    items = ["sched/core: commit of kernel %d" % k, "ext4: a fix %d" % k]
    if k == STEP_AT:
        items += ["sched/fair: the commit that moved the wakeup",
                  "cpufreq: schedutil: near it"]
    return ("linux (6.13.%d-1) unstable; urgency=medium\n\n%s\n\n"
            " -- Someone <someone@example.org>  Mon, 16 Nov 2026 11:17:40 "
            "+0100\n\n" % (k, "".join("  * %s\n" % i for i in items)))


class TestSeries(unittest.TestCase):
    """Ten kernels, a step of periodic-light's wakeup latency from the
    sixth on: the guest's runs are test_history's synthetic ones."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-series-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.made = make_series(os.path.join(self.tmp, "made"), KERNELS, 7,
                                step_at=STEP_AT, factor=2)
        self.debs = []
        for k in range(KERNELS):
            log = "".join(entry(i) for i in range(k, -1, -1))
            self.debs.append(build_deb(self.tmp, "linux-image-t%02d" % k,
                                       "6.13.%d-1" % k, log))
        self.out = os.path.join(self.tmp, "series")
        self.booted = []

    def guest(self, deb, baselines, runs, run_args, log, timeout=None):
        """As vm would: the kernel's run directory under @runs."""
        k = self.debs.index(deb)
        self.booted.append(k)
        shutil.copytree(self.made[k], os.path.join(
            runs, os.path.basename(self.made[k])))
        # a repetition's trace, which the compact run leaves behind
        os.makedirs(os.path.join(runs, os.path.basename(self.made[k]),
                                 "periodic-light", "rep-1"))
        with open(log, "w") as f:
            f.write("TAP version 13\n")
        return 0

    def run_series(self):
        with unittest.mock.patch.object(series, "guest", self.guest), \
                unittest.mock.patch("sys.stdout"):
            return series.main(["-o", self.out, "-j", "2"] + self.debs)

    def test_change_named_with_its_commits(self):
        self.assertEqual(self.run_series(), swtest.EXIT_FAIL)
        self.assertEqual(sorted(self.booted), list(range(KERNELS)))
        found = swtest.load_json(os.path.join(self.out, "changes.json"))
        self.assertEqual(len(found), 1, found)
        c = found[0]
        self.assertEqual((c["previous"], c["kernel"]),
                         ("6.13.0-rc%d" % STEP_AT, "6.13.0-rc%d" %
                          (STEP_AT + 1)))
        self.assertEqual((c["previous_version"], c["version"]),
                         ("6.13.%d-1" % (STEP_AT - 1), "6.13.%d-1" % STEP_AT))
        self.assertEqual([m["name"] for m in c["metrics"]], [STEPPED])
        self.assertEqual(c["commits"], 4)
        self.assertEqual(c["sched"], [
            "sched/core: commit of kernel %d" % STEP_AT,
            "sched/fair: the commit that moved the wakeup"])
        self.assertEqual(c["near"], ["cpufreq: schedutil: near it"])
        # the page of the series: the change with its commits
        if importlib.util.find_spec("matplotlib"):
            with open(os.path.join(self.out, "history.html")) as f:
                page = f.read()
            self.assertEqual(page_changes(page), [
                (c["previous"], c["kernel"], [STEPPED])])
            self.assertIn("<li>sched/fair: the commit that moved the "
                          "wakeup</li>", page)
            self.assertIn("4 commits between 6.13.%d-1 and 6.13.%d-1" %
                          (STEP_AT - 1, STEP_AT), page)
        compact = os.path.join(self.out, "compact", "linux-image-t00")
        self.assertTrue(os.path.isfile(os.path.join(
            compact, "periodic-light", "samples.json")))
        self.assertFalse(os.path.exists(os.path.join(
            compact, "periodic-light", "rep-1")))

    def test_resumed(self):
        self.run_series()
        first = swtest.load_json(os.path.join(self.out, "changes.json"))
        self.booted = []
        self.assertEqual(self.run_series(), swtest.EXIT_FAIL)
        self.assertEqual(self.booted, [], "a kernel judged before ran again")
        self.assertEqual(swtest.load_json(
            os.path.join(self.out, "changes.json")), first)

    def test_an_interrupted_guest_judges_nothing(self):
        """vm interrupted (Ctrl-C, SIGTERM) exits 130 with a run directory
        begun: the series stops with that status, keeps nothing of that
        kernel as judged, and run again judges it."""
        real = self.guest

        def interrupted(deb, baselines, runs, run_args, log, timeout=None):
            real(deb, baselines, runs, run_args, log, timeout)
            return guest_verdicts.INTERRUPTED if deb == self.debs[4] else 0

        with unittest.mock.patch.object(series, "guest", interrupted), \
                unittest.mock.patch("sys.stdout"):
            rc = series.main(["-o", self.out, "-j", "1"] + self.debs)
        self.assertEqual(rc, guest_verdicts.INTERRUPTED)
        # one at a time: none after the fifth started
        self.assertEqual(self.booted, [0, 1, 2, 3, 4])
        self.assertFalse(os.path.exists(os.path.join(
            self.out, "runs", "linux-image-t04", series.DONE)))
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     "changes.json")))
        self.booted = []
        self.assertEqual(self.run_series(), swtest.EXIT_FAIL)
        self.assertEqual(sorted(self.booted), list(range(4, KERNELS)))

    def test_a_kernel_without_a_run(self):
        os.makedirs(os.path.join(self.out, "runs"))

        def no_run(deb, baselines, runs, run_args, log, timeout=None):
            with open(log, "w") as f:
                f.write("not ok 1 vm-x # the guest hung\n")
            return swtest.EXIT_RUN_ERROR

        with unittest.mock.patch.object(series, "guest", no_run), \
                unittest.mock.patch("sys.stdout"), \
                unittest.mock.patch("sys.stderr") as err:
            rc = series.main(["-o", self.out] + self.debs[:3])
        self.assertEqual(rc, swtest.EXIT_RUN_ERROR)
        self.assertIn("no run of linux-image-t00, linux-image-t01, "
                      "linux-image-t02", "".join(
                          c.args[0] for c in err.write.call_args_list))

    def test_too_short(self):
        with unittest.mock.patch("sys.stderr"):
            self.assertEqual(series.main(["-o", self.out] + self.debs[:2]),
                             swtest.EXIT_USAGE)


if __name__ == "__main__":
    unittest.main()
