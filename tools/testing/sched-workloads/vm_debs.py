# SPDX-License-Identifier: GPL-2.0
"""Debian packages taken apart into the cache of "sched-workloads vm",
never installed: the guest's userspace of another architecture
(vm_userspace.py), a kernel given as a linux-image .deb (vm.py), a QEMU
from backports (vm_qemu.py).

Each directory of unpacked packages holds a MANIFEST, its packages and
their versions, a line each: a directory without one is not whole.
"""
import os
import shutil
import subprocess
import tempfile

CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                     os.path.expanduser("~/.cache"), "sched-workloads", "vm")
MANIFEST = ".sw-packages"


def unpack_debs(debs, final):
    """The Debian packages @debs extracted into the cache directory
    @final, with a MANIFEST: made whole in a directory of its own, then
    renamed, so that of two processes making it at once (two guests of
    one kernel) the first wins and the other's copy goes."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    part = tempfile.mkdtemp(prefix=os.path.basename(final) + ".part-",
                            dir=os.path.dirname(final))
    try:
        manifest = []
        for deb in sorted(debs):
            dpkg_deb("-x", deb, part)
            manifest.append(dpkg_deb("-f", deb, "Package", "Version").replace(
                "Package: ", "").replace("\nVersion: ", " "))
        with open(os.path.join(part, MANIFEST), "w") as f:
            f.write("".join(manifest))
        os.chmod(part, 0o755)
        try:
            os.rename(part, final)
        except OSError:
            if not os.path.isfile(os.path.join(final, MANIFEST)):
                raise
    finally:
        shutil.rmtree(part, ignore_errors=True)
    return final


def dpkg_deb(*args):
    return subprocess.run(["dpkg-deb"] + list(args), capture_output=True,
                          text=True, check=True).stdout


def manifest(root):
    """{package: version} of what was unpacked at @root."""
    with open(os.path.join(root, MANIFEST)) as f:
        return dict(line.split(" ", 1) for line in f.read().splitlines()
                    if line)
