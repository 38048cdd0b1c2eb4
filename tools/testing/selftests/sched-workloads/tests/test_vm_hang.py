# SPDX-License-Identifier: GPL-2.0
"""Where a hung guest's CPUs are (vm_hang.py): QEMU's register dump
parsed (its arm64 and x86 formats), program counters named from a
System.map, the reads of each CPU summed up, the monitor's protocol
spoken with a fake monitor, and a real QEMU's vCPUs read through it."""
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import swtest  # noqa: F401 (puts the desk's tools on sys.path)
import vm_hang
import vm_qemu

# As QEMU 10.0's "info registers -a" prints an arm64 guest (two CPUs,
# the first in a kernel function, the second spinning on a lock), the
# echo of the command before it.
ARM64 = (
    "info registers -a\x1b[K\r\n\r\nCPU#0\r\n"
    " PC=ffff8000080a1238 X00=0000000000000001 X01=0000000000000000\r\n"
    "X02=0000000000000000 X03=0000000000000000 X04=0000000000000000\r\n"
    "X29=ffff80000a00bd80 X30=ffff8000080a1100  SP=ffff80000a00bd80\r\n"
    "PSTATE=600003c5 -ZC- EL1h    FPU disabled\r\n\r\n"
    "CPU#1\r\n"
    " PC=ffff800008f00010 X00=0000000000000000 X01=0000000000000000\r\n"
    "X29=ffff80000a013d00 X30=ffff8000080a1300  SP=ffff80000a013d00\r\n"
    "PSTATE=800003c5 N--- EL1h    FPCR=00000000 FPSR=00000000\r\n")

X86 = ("\r\nCPU#0\r\nRAX=0000000000000000 RBX=0000000000000000\r\n"
       "RIP=ffffffff81000010 RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1\r\n")

MAP = """\
ffff800008000000 T _text
ffff8000080a1000 t distribute_cfs_runtime
ffff8000080a1200 T do_sched_cfs_period_timer
ffff8000080a1400 d some_data
ffff800008f00000 T queued_spin_lock_slowpath
ffff800008f00100 W _etext_last
"""


class TestParse(unittest.TestCase):
    def test_arm64(self):
        self.assertEqual(vm_hang.parse_registers(ARM64), {
            0: (0xffff8000080a1238, 0xffff8000080a1100),
            1: (0xffff800008f00010, 0xffff8000080a1300)})

    def test_x86(self):
        self.assertEqual(vm_hang.parse_registers(X86),
                         {0: (0xffffffff81000010, None)})

    def test_nothing(self):
        self.assertEqual(vm_hang.parse_registers("unknown command\r\n"), {})


class TestSymbols(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-hang-")
        self.map = os.path.join(self.tmp, "System.map")
        with open(self.map, "w") as f:
            f.write(MAP)
        self.sym = vm_hang.Symbols(self.map)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_functions(self):
        f = self.sym.function
        self.assertEqual(f(0xffff8000080a1000), "distribute_cfs_runtime")
        self.assertEqual(f(0xffff8000080a11ff), "distribute_cfs_runtime")
        self.assertEqual(f(0xffff8000080a1200), "do_sched_cfs_period_timer")
        # data symbols are not functions: the text before them goes on
        self.assertEqual(f(0xffff8000080a1500), "do_sched_cfs_period_timer")
        self.assertIsNone(f(0xffff700000000000))
        self.assertIsNone(f(0xffff800009100000))

    def test_no_text(self):
        with open(self.map, "w") as f:
            f.write("ffff800008000000 d data\n")
        with self.assertRaisesRegex(vm_hang.MonitorError, "no text symbols"):
            vm_hang.Symbols(self.map)

    def test_where(self):
        seen = {0: [(0xffff8000080a1238, 0xffff8000080a1100)] * 7 +
                [(0xffff8000080a1010, 0xffff8000080a1300)],
                1: [(0xffff800008f00010, 0xffff8000080a1300)] * 8}
        self.assertEqual(
            vm_hang.where(seen, self.sym),
            "cpu0 in do_sched_cfs_period_timer 7, distribute_cfs_runtime 1 "
            "of 8 reads (lr in distribute_cfs_runtime), cpu1 in "
            "queued_spin_lock_slowpath 8 of 8 reads (lr in "
            "do_sched_cfs_period_timer)")

    def test_where_without_symbols(self):
        self.assertEqual(vm_hang.where({0: [(0x1000, None)] * 2}, None),
                         "cpu0 in 0x1000 2 of 2 reads")

    def test_at_most_three_functions(self):
        seen = {0: [(0xffff8000080a1010, None)] * 3 +
                [(0xffff8000080a1210, None)] * 2 +
                [(0xffff800008f00010, None)] * 4 + [(0x2000, None)]}
        self.assertEqual(vm_hang.where(seen, self.sym),
                         "cpu0 in queued_spin_lock_slowpath 4, "
                         "distribute_cfs_runtime 3, do_sched_cfs_period_timer "
                         "2 of 10 reads")


class FakeMonitor(threading.Thread):
    """A monitor on a unix socket: a banner and prompt, then @answer to
    every command (or, a list, its next item; the last one again when
    they run out), one connection after another; the commands it got in
    .got."""

    def __init__(self, path, answer):
        super().__init__(daemon=True)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.answers = [answer] if isinstance(answer, str) else answer
        self.got = []

    def next_answer(self):
        return self.answers.pop(0) if len(self.answers) > 1 else \
            self.answers[0]

    def run(self):
        while True:
            c, _ = self.srv.accept()
            with c:
                self.serve(c)

    def serve(self, c):
        c.sendall(b"QEMU monitor\r\n(qemu) ")
        buf = b""
        while True:
            data = c.recv(4096)
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.got.append(line.decode())
                c.sendall(self.next_answer().encode() + b"(qemu) ")


class TestMonitor(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-hang-")
        self.sock = os.path.join(self.tmp, "monitor.sock")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_sample(self):
        mon = FakeMonitor(self.sock, ARM64)
        mon.start()
        seen = vm_hang.sample(self.sock, reads=3, interval=0)
        self.assertEqual(mon.got, ["info registers -a"] * 3)
        self.assertEqual(seen[1], [(0xffff800008f00010,
                                    0xffff8000080a1300)] * 3)

    def test_no_registers(self):
        FakeMonitor(self.sock, "unknown command\r\n").start()
        with self.assertRaisesRegex(vm_hang.MonitorError, "no registers"):
            vm_hang.sample(self.sock, reads=1)

    def test_stall(self):
        """A guest in its kernel at every read for longer than the bound
        is stuck; one read with a CPU in user space starts the count
        again; reads come only when due."""
        user = ARM64.replace("PC=ffff800008f00010", "PC=0000aaaab1234560")
        mon = FakeMonitor(self.sock, [ARM64, ARM64, user, ARM64, ARM64,
                                      ARM64])
        mon.start()
        stall = vm_hang.Stall(self.sock, bound_s=30, every_s=10)
        # the first call starts the clock; the next read is due at 10 s
        self.assertIsNone(stall.stuck(0))
        self.assertIsNone(stall.stuck(5))
        self.assertEqual(mon.got, [])
        self.assertIsNone(stall.stuck(10))     # kernel: 10 s
        self.assertIsNone(stall.stuck(20))     # kernel: 20 s
        self.assertIsNone(stall.stuck(30))     # user space: again from 30
        self.assertIsNone(stall.stuck(50))     # kernel: 20 s
        self.assertIsNone(stall.stuck(60))     # kernel: 30 s, not beyond
        self.assertEqual(stall.stuck(70), 40)  # kernel: 40 s
        self.assertEqual(mon.got, ["info registers -a"] * 6)

    def test_stall_without_monitor(self):
        """A monitor that does not answer is no evidence either way."""
        stall = vm_hang.Stall(self.sock, bound_s=0, every_s=0)
        self.assertIsNone(stall.stuck(0))
        self.assertIsNone(stall.stuck(100))

    def test_no_monitor(self):
        self.assertRegex(vm_hang.report(self.sock, None),
                         r"^where its CPUs were is not known: the monitor "
                         r"at .*monitor.sock: ")


class TestRealQemu(unittest.TestCase):
    """A real QEMU's monitor, its vCPUs stopped before their first
    instruction: every CPU read, the addresses unnamed without a map."""

    def test_two_cpus(self):
        try:
            q = vm_qemu.qemu_for("qemu-system-aarch64", "qemu-system-arm",
                                 False)
        except vm_qemu.QemuError as e:
            self.skipTest(str(e))
        tmp = tempfile.mkdtemp(prefix="sw-hang-")
        self.addCleanup(shutil.rmtree, tmp)
        sock = os.path.join(tmp, "monitor.sock")
        p = subprocess.Popen([q.path, "-nodefaults", "-display", "none",
                              "-M", "virt", "-cpu", "cortex-a57", "-smp",
                              "2", "-S"] + vm_hang.monitor_args(sock),
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        text = vm_hang.report(sock, None)
        self.assertRegex(text, r"^its CPUs: cpu0 in 0x0 16 of 16 reads, "
                         r"cpu1 in 0x0 16 of 16 reads; addresses not named")


if __name__ == "__main__":
    unittest.main()
