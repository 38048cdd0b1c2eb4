# SPDX-License-Identifier: GPL-2.0
"""The architectures a guest of "sched-workloads vm" can be: how QEMU
runs each (its binary and package, machine, console, CPU models), what
Debian and the cross compilers call it, and which one a kernel image is.

A guest of the host's architecture runs the host's userspace; a guest of
another one (arm64 on an x86_64 host) runs one of Debian's packages for
it (vm_userspace.py).
"""
import gzip
import platform


class Arch:
    def __init__(self, name, debian, qemu_package, machine, console,
                 cpu_tcg, cpu_deterministic):
        self.name, self.debian = name, debian
        self.qemu = "qemu-system-" + name
        self.qemu_package = qemu_package
        self.machine, self.console = machine, console
        self.cpu_tcg, self.cpu_deterministic = cpu_tcg, cpu_deterministic
        self.triplet = name + "-linux-gnu"


# The deterministic CPU models: a fixed one, never "max" (what QEMU
# emulates grows with its version) or "host".
ARCHES = {
    "x86_64": Arch("x86_64", "amd64", "qemu-system-x86", "q35", "ttyS0",
                   "max", "qemu64"),
    # dtb-randomness=off: no kaslr-seed or rng-seed in the device tree
    "aarch64": Arch("aarch64", "arm64", "qemu-system-arm",
                    "virt,dtb-randomness=off", "ttyAMA0",
                    "cortex-a57", "cortex-a57"),
}


def image_arch(path):
    """The architecture of the kernel image at @path: "x86_64" for a
    bzImage, "aarch64" for an arm64 Image (gzip-compressed or not), None
    for anything else."""
    with open(path, "rb") as f:
        head = f.read(0x240)
    if head[:2] == b"\x1f\x8b":
        with gzip.open(path) as f:
            head = f.read(0x240)
    if head[0x202:0x206] == b"HdrS":
        return "x86_64"
    if head[0x38:0x3c] == b"ARM\x64":
        return "aarch64"
    return None


def host_arch():
    return platform.machine()
