# SPDX-License-Identifier: GPL-2.0
"""The command line as a new user meets it: every command answers --help
with its usage on stdout and exit 0, without doing anything else, and an
option it does not know with its usage on stderr and exit 2."""
import unittest

from swtest import EXIT_PASS, EXIT_USAGE, sw

COMMANDS = ["run", "baseline", "compare", "list", "fingerprint", "check",
            "metrics", "analyze", "canary", "replay", "qualify", "record",
            "--facts"]


class TestHelp(unittest.TestCase):
    def test_help_on_stdout(self):
        for cmd in COMMANDS:
            with self.subTest(cmd=cmd):
                r = sw(cmd, "--help", timeout=30)
                self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
                self.assertIn("usage: sched-workloads", r.stdout)

    def test_unknown_option_on_stderr(self):
        for cmd in COMMANDS:
            with self.subTest(cmd=cmd):
                r = sw(cmd, "--no-such-option", timeout=30)
                self.assertEqual(r.returncode, EXIT_USAGE, r.stdout)
                self.assertIn("usage:", r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
