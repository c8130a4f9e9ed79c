"""When a process started, so a recycled pid is not taken for an invocation's dead owner.

An owner is stored as (host, pid, start time). A pid alone is not enough:
once the owner dies, the kernel may hand its pid to an unrelated process,
and a check that only asks "is this pid alive?" would keep the dead
owner's lease forever. On Linux the real start time of any process is read
from ``/proc/<pid>/stat`` (field 22, clock ticks since boot) plus the boot
time (``btime`` in ``/proc/stat``); a live pid whose start time differs
from the stored one is another process. Where ``/proc`` is missing (macOS,
Windows) the start time is unknown: this process's owner records the time
it first needed it, and a live pid is then trusted as the owner (its lease
still expires).
"""

from __future__ import annotations

import functools
import os
import time

__all__ = ["START_TOLERANCE", "process_started_at", "this_process_started_at"]

START_TOLERANCE = 1.0
"""Seconds two readings of one process's start may differ by (boot time is whole seconds)."""


@functools.cache
def _boot_time() -> float | None:
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except OSError:
        return None
    return None


@functools.cache
def _ticks_per_second() -> float:
    return float(os.sysconf("SC_CLK_TCK"))


def process_started_at(pid: int) -> float | None:
    """Epoch seconds at which process ``pid`` started; None when it is gone or unknowable."""
    boot = _boot_time()
    if boot is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            text = stat.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces or ')'.
    fields = text[text.rindex(")") + 2 :].split()
    try:
        ticks = int(fields[19])  # field 22 counted from 1, minus the pid and name
    except (IndexError, ValueError):
        return None
    return boot + ticks / _ticks_per_second()


def this_process_started_at() -> float:
    """This process's start (its first reading, where ``/proc`` cannot say)."""
    return _own_start(os.getpid())  # keyed by pid: a forked child is another process


@functools.cache
def _own_start(pid: int) -> float:
    started = process_started_at(pid)
    return time.time() if started is None else started
