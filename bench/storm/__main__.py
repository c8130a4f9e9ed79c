"""``python -m bench.storm``: run every registered storm policy, print one JSON line.

Where the measured steadyflow lacks what the storm itself needs (an older
commit under ``--at``), the line says why (``skipped``) instead of crashing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..worker import RESULT_MARKER


def main(argv: list[str]) -> int:
    """Simulate each policy in turn and print the figures after ``RESULT_MARKER``."""
    try:
        from .policies import STORM_POLICIES
        from .simulate import StormSettings, simulate
    except ImportError as error:
        why = f"the measured steadyflow lacks what the storm needs: {error}"
        print(RESULT_MARKER + json.dumps({"skipped": why}), flush=True)
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.storm", description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0, help="burst length (simulated)")
    parser.add_argument("--capacity", type=float, default=20.0, help="requests per second")
    parser.add_argument("--overload", type=float, default=5.0, help="arrivals / capacity")
    args = parser.parse_args(argv)
    settings = StormSettings(capacity=args.capacity, overload=args.overload, seconds=args.seconds)
    rows = []
    for policy in STORM_POLICIES.values():
        started = time.perf_counter()
        row = simulate(policy, settings)
        row["real_s"] = time.perf_counter() - started
        rows.append(row)
    result = {"settings": vars(settings) | {}, "policies": rows}
    print(RESULT_MARKER + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
