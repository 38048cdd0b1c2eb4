# SPDX-License-Identifier: GPL-2.0
"""Where a hung guest's CPUs are.

A guest that stops making progress may be spinning in the kernel with
interrupts off, where no detector of its own can report: a timer's
callback that never returns holds its CPU, the other CPUs wait on the
lock it holds, and the console stays silent. Seen with the mutant
cfs-bandwidth-no-unthrottle: nothing after the run started, not even an
RCU stall warning. What the vCPUs execute then is the one thing that
names the mechanism, and only QEMU can see it: before vm kills a hung
guest, its monitor is asked for every vCPU's registers a few times, and
each program counter is named from the kernel's System.map.
"""
import bisect
import collections
import re
import socket
import time

PROMPT = b"(qemu) "
READS = 16
# Spread over four seconds: one read could catch a CPU passing through;
# a loop over a few functions shows as those functions, each read often.
INTERVAL_S = 0.25
# the functions named per CPU, most read first
SHOWN = 3
CPU_HEADER = re.compile(r"^CPU#(\d+)\s*$", re.M)
# arm64's dump prints PC=, x86's RIP= (EIP= for a 32-bit mode)
PC = re.compile(r"\b(?:PC|RIP|EIP)=([0-9a-fA-F]+)")
# arm64's link register: the caller, when the PC is in a leaf or a spin
LR = re.compile(r"\bX30=([0-9a-fA-F]+)")


class MonitorError(Exception):
    pass


def monitor_args(path):
    """QEMU's arguments for a human monitor on the unix socket @path:
    it waits for nobody, and the guest never sees it."""
    return ["-monitor", "unix:%s,server=on,wait=off" % path]


class Symbols:
    """The text symbols of a System.map, to name an address."""

    def __init__(self, path):
        rows = []
        with open(path, errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3 or parts[1] not in "tTwW":
                    continue
                try:
                    rows.append((int(parts[0], 16), parts[2]))
                except ValueError:
                    continue
        if not rows:
            raise MonitorError("%s: no text symbols" % path)
        rows.sort()
        self.addrs = [a for a, _ in rows]
        self.names = [n for _, n in rows]

    def function(self, addr):
        """The function @addr is in, or None outside the kernel's text
        (user space, or past its last symbol's neighbourhood)."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        # the last text symbol ends the kernel's text: no size is known,
        # so an address far past it is not in it
        if i < 0 or (i == len(self.addrs) - 1 and addr - self.addrs[i] >
                     1 << 20):
            return None
        return self.names[i]


def parse_registers(text):
    """{cpu index: (pc, lr or None)} of "info registers -a" output."""
    cpus = {}
    heads = list(CPU_HEADER.finditer(text))
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[h.end():end]
        pc, lr = PC.search(body), LR.search(body)
        if pc:
            cpus[int(h.group(1))] = (int(pc.group(1), 16),
                                     int(lr.group(1), 16) if lr else None)
    return cpus


def command(sock, line, timeout):
    """Sends @line to the monitor on @sock: what it printed before its
    next prompt."""
    sock.sendall(line.encode() + b"\n")
    return read_to_prompt(sock, timeout)


def read_to_prompt(sock, timeout):
    got, end = b"", time.monotonic() + timeout
    while not got.endswith(PROMPT):
        left = end - time.monotonic()
        if left <= 0:
            raise MonitorError("no monitor prompt in %.0f s" % timeout)
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            raise MonitorError("the monitor closed")
        got += chunk
    # the monitor echoes the command and may colour the prompt with
    # escape sequences: registers are matched in the text, not by line
    return got[:-len(PROMPT)].decode(errors="replace")


def sample(path, reads=READS, interval=INTERVAL_S, timeout=10):
    """Every vCPU's (pc, lr), @reads times: a list per CPU index."""
    seen = collections.defaultdict(list)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            read_to_prompt(s, timeout)
            for n in range(reads):
                if n:
                    time.sleep(interval)
                regs = parse_registers(command(s, "info registers -a",
                                               timeout))
                if not regs:
                    raise MonitorError("no registers in the monitor's "
                                       "answer")
                for cpu, pc_lr in regs.items():
                    seen[cpu].append(pc_lr)
    except OSError as e:
        raise MonitorError("the monitor at %s: %s" % (path, e))
    return dict(seen)


def where(seen, symbols):
    """Where each CPU was over its reads, a part each: the functions its
    reads fell in, most first (three at most), how many of its reads in
    each, and the caller of the first from the link register when that
    is another function. Raw addresses without @symbols."""
    parts = []

    def name(addr):
        f = symbols.function(addr) if symbols and addr else None
        return f or "%#x" % addr

    for cpu in sorted(seen):
        reads = seen[cpu]
        funcs = collections.Counter(name(pc) for pc, _ in reads)
        top = funcs.most_common(SHOWN)
        callers = collections.Counter(name(lr) for pc, lr in reads
                                      if lr and name(pc) == top[0][0])
        caller = callers.most_common(1)[0][0] if callers else None
        text = "cpu%d in %s of %d reads" % (
            cpu, ", ".join("%s %d" % fc for fc in top), len(reads))
        if caller and caller != top[0][0]:
            text += " (lr in %s)" % caller
        parts.append(text)
    return ", ".join(parts)


# A 64-bit kernel's text is in the upper half of the address space
# (arm64 and x86_64 alike), user space in the lower.
KERNEL_HALF = 1 << 63


class Stall:
    """Whether a booted guest still runs user space, read from its
    monitor every @every_s s: a guest none of whose CPUs was in user
    space at any read for @bound_s s is stuck in its kernel (a CPU
    spinning with interrupts off, the others idle or waiting on it),
    long before vm's --timeout. A battery's quietest stretch is the
    wait between two rounds of a confirmation (60 s, every CPU idle);
    it runs rt-app or the runner itself the rest of the time. Reading
    the registers stops no vCPU of TCG (it has no state to synchronize):
    a deterministic guest's run is the same with it; on KVM a read is
    one exit of each vCPU, every @every_s s."""

    def __init__(self, path, bound_s, every_s=15):
        self.path, self.bound, self.every = path, bound_s, every_s
        self.last_read = self.last_user = None

    def stuck(self, now):
        """Reads the guest when a read is due: the seconds it has been
        in its kernel only, when that passed the bound; else None."""
        if self.last_user is None:
            self.last_read = self.last_user = now
        if now - self.last_read < self.every:
            return None
        self.last_read = now
        try:
            seen = sample(self.path, reads=1)
        except MonitorError:
            return None     # no answer is no evidence
        if any(pc < KERNEL_HALF for reads in seen.values()
               for pc, _ in reads):
            self.last_user = now
        elapsed = now - self.last_user
        return elapsed if elapsed > self.bound else None


def report(path, system_map):
    """where() of the guest whose monitor is at @path, or why not."""
    try:
        symbols = Symbols(system_map) if system_map else None
    except (OSError, MonitorError) as e:
        symbols = None
        note = "; no symbols (%s)" % e
    else:
        note = "" if symbols else ("; addresses not named (no System.map, "
                                   "or its kernel's addresses randomized)")
    try:
        return "its CPUs: " + where(sample(path), symbols) + note
    except MonitorError as e:
        return "where its CPUs were is not known: %s" % e
