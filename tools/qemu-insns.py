#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Counts the guest instructions a qemu-user run executed, from its log.

Run the program as
    qemu-aarch64 -d in_asm,exec,nochain -D LOG PROGRAM ...
and pass LOG: every translated block is listed once with its instructions
(in_asm) and every execution of a block once (exec; nochain keeps blocks
from running on into each other unlogged). The sum over executions of each
block's instruction count is the run's count; a block translated again
counts with its latest translation. Counting starts at the first block of
`main`: what the loader and the libraries' constructors run before it is
left out (Highway's shared library times a loop at load, whose length
varies from run to run). Prints the count.
"""
import re
import sys

TRACE = re.compile(rb"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/[^]]*\] ?(\S*)")
INSN = re.compile(rb"^0x([0-9a-f]+):\s")


def count(path):
    sizes = {}
    total = 0
    started = False
    block_pc = None
    block_len = 0
    with open(path, "rb") as log:
        for line in log:
            if line.startswith(b"Trace "):
                m = TRACE.match(line)
                if m:
                    started = started or m.group(2) == b"main"
                    if started:
                        total += sizes.get(int(m.group(1), 16), 0)
                continue
            m = INSN.match(line)
            if m:
                if block_pc is None:
                    block_pc = int(m.group(1), 16)
                block_len += 1
                continue
            if block_pc is not None:  # a block's listing ended
                sizes[block_pc] = block_len
                block_pc, block_len = None, 0
    if block_pc is not None:
        sizes[block_pc] = block_len
    if not started:
        sys.exit(f"qemu-insns.py: {path}: no block of main was executed")
    return total


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: qemu-insns.py LOG")
    print(count(sys.argv[1]))
