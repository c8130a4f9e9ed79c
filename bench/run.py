"""``python -m bench.run [--quick]``: every scenario on every side, then the report.

Order of work: install missing peers, then the timed scenarios (one worker
process per side per round, the side order rotating each round so machine
noise hits every side alike), the memory scenarios (a fresh process each),
the import probes (alternating sides), the package counts and the retry
storm. Results go to ``bench/results/latest.json``, the table to
``bench/README.md`` and stdout, one plot per scenario to ``bench/results/``.
A side that fails is reported as failed; the others still run.

``--baseline COMMIT`` adds ``steadyflow @<sha>``, the code at COMMIT
imported from a temporary worktree (as ``--at`` does for the measured side),
measured in the same rounds and rotation as every other side: ours against
an older commit in one run, which peer figures from different runs cannot
give (they swing by up to 2x between runs). It is not a peer: the best-peer
figures ignore it; the table adds its column and ours / baseline.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from . import envs, overview, procs, report, scenarios
from .sides import OURS, PEERS, Side, baseline_side

__all__ = ["main"]

RESULTS = envs.REPO / "bench" / "results"

# Where each steadyflow side imports steadyflow from (None: the working tree).
Sources = Mapping[str, Path | None]


def _log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=envs.REPO, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _is_commit(name: str) -> bool:
    check = ["git", "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"]
    return subprocess.run(check, cwd=envs.REPO, capture_output=True, check=False).returncode == 0


@contextlib.contextmanager
def _measured_src(at: str | None) -> Iterator[Path | None]:
    """A worktree's ``src`` for ``--at COMMIT``; None measures the working tree."""
    if at is None:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="steadyflow-bench-at-"))
    _git("worktree", "add", "--detach", str(folder), at)
    try:
        yield folder / "src"
    finally:
        _git("worktree", "remove", "--force", str(folder))


def _machine() -> dict[str, Any]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(mem_kb / 1024 / 1024, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "load_at_start": os.getloadavg(),
    }


def _meta(
    profile: scenarios.Profile, at: str | None, baseline: str | None, sides: list[Side]
) -> dict[str, Any]:
    commit = _git("rev-parse", at or "HEAD")
    dirty = at is None and bool(_git("status", "--porcelain", "--", "src"))
    versions = {
        side.name: envs.distribution_version(envs.python_for(side), side.requirement or side.name)
        for side in sides
        if not side.is_baseline
    }
    meta = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "profile": profile.name,
        "commit": commit,
        "src_dirty": dirty,
        "machine": _machine(),
        "versions": versions,
    }
    chosen = next((side for side in sides if side.is_baseline), None)
    if baseline is not None and chosen is not None:
        meta["baseline"] = {"side": chosen.name, "commit": _git("rev-parse", baseline)}
    return meta


def _rotated(sides: list[Side], round_index: int) -> list[Side]:
    shift = round_index % len(sides)
    return sides[shift:] + sides[:shift]


def _record(runs: dict[str, Any], side: Side, jobs: list[dict[str, Any]], results: Any) -> None:
    for job, result in zip(jobs, results, strict=True):
        runs.setdefault(job["key"], {}).setdefault(side.name, []).append(result)


def _run_jobs(runs: dict[str, Any], side: Side, jobs: list[dict[str, Any]], srcs: Sources) -> None:
    env = procs.child_env(ours=side.is_steadyflow, src=srcs.get(side.name))
    started = time.perf_counter()
    try:
        results: list[Any] = procs.run_worker(envs.python_for(side), side.name, jobs, env, 1800)
    except procs.ProbeError as error:
        _log(f"{side.name} failed: {error}")
        results = [{"error": str(error)} for _ in jobs]
    _record(runs, side, jobs, results)
    keys = ", ".join(job["key"] for job in jobs)
    _log(f"{side.name}: {keys} ({time.perf_counter() - started:.1f}s)")


def _run_scenarios(profile: scenarios.Profile, sides: list[Side], srcs: Sources) -> dict[str, Any]:
    runs: dict[str, Any] = {}
    memory = scenarios.memory_jobs(profile)
    # Memory is read first thing in a process: earlier scenarios' freed memory
    # would otherwise be reused and hide part of the peak.
    first = [] if profile.memory_apart else memory
    for index in range(profile.rounds):
        for side in _rotated(sides, index):
            _run_jobs(runs, side, first + scenarios.timing_jobs(profile, index), srcs)
    for index, job in enumerate(memory if profile.memory_apart else []):
        for side in _rotated(sides, index):
            _run_jobs(runs, side, [job], srcs)
    return runs


def _run_imports(profile: scenarios.Profile, sides: list[Side], srcs: Sources) -> dict[str, Any]:
    # pip compiles the peers' bytecode when it installs them; the working tree's may
    # be stale (or never written, with PYTHONDONTWRITEBYTECODE), so compile it too.
    for side in sides:
        if side.is_steadyflow:
            src = srcs.get(side.name)
            package = (src if src is not None else envs.REPO / "src") / "steadyflow"
            subprocess.run(
                [str(envs.python_for(side)), "-m", "compileall", "-q", str(package)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
    probes: dict[str, list[Any]] = {side.name: [] for side in sides}
    for index in range(profile.import_reps):
        for side in _rotated(sides, index):
            env = procs.child_env(ours=side.is_steadyflow, src=srcs.get(side.name))
            try:
                result = procs.run_import_probe(envs.python_for(side), side.import_statement, env)
            except procs.ProbeError as error:
                result = {"error": str(error)}
            probes[side.name].append(result)
    _log("import probes done")
    return probes


def _packages(sides: list[Side]) -> dict[str, Any]:
    """Installed distributions per side; the baseline's are not counted (one core venv)."""
    counts: dict[str, Any] = {}
    for side in sides:
        if side.is_baseline:
            why = f"n/a at {side.baseline_commit}: counted for the tree only"
            counts[side.name] = {"count": None, "why_not": why}
            continue
        python = envs.ensure_core_venv() if side is OURS else envs.python_for(side)
        names = envs.installed_packages(python)
        counts[side.name] = {"count": len(names), "names": names}
    return counts


def _sides(names: list[str] | None, upgrade: bool, baseline: str | None) -> list[Side]:
    """Ours, the baseline right after it (when asked), then the peers, installed if needed."""
    peers = [p for p in PEERS if names is None or p.name in names]
    for peer in peers:
        _log(f"checking the {peer.name} virtualenv")
        envs.ensure_peer(peer, upgrade=upgrade)
    if baseline is None:
        return [OURS, *peers]
    return [OURS, baseline_side(_git("rev-parse", "--short", baseline)), *peers]


def _storm(profile: scenarios.Profile, src: Path | None) -> dict[str, Any]:
    """The storm on the measured code; a failure is noted in the table, not raised."""
    env = procs.child_env(ours=True, src=src)
    try:
        storm = procs.run_storm(profile.storm_seconds, profile.storm_capacity, env)
    except procs.ProbeError as error:
        _log(f"storm failed: {error}")
        return {"error": str(error)}
    _log("storm done")
    return storm


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the under-a-minute profile")
    parser.add_argument("--at", metavar="COMMIT", help="measure steadyflow at this commit")
    parser.add_argument(
        "--baseline",
        metavar="COMMIT",
        help="also measure steadyflow at this commit, side by side in the same run",
    )
    parser.add_argument("--peers", nargs="*", help="only these peers (default: all)")
    parser.add_argument("--upgrade-peers", action="store_true", help="reinstall newest peers")
    parser.add_argument("--no-readme", action="store_true", help="leave bench/README.md alone")
    parser.add_argument(
        "--render", metavar="JSON", help="only redo the table and plots from a results file"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Run the benchmark; exit status 0 unless the run itself broke."""
    args = _parse(argv)
    # A plain SIGTERM would skip the finally blocks that remove the --at worktree.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    readme = None if args.no_readme else envs.REPO / "bench" / "README.md"
    if args.render:
        _publish(json.loads(Path(args.render).read_text()), readme)
        return 0
    profile = scenarios.QUICK if args.quick else scenarios.FULL
    started = time.perf_counter()
    unknown = [c for c in (args.at, args.baseline) if c is not None and not _is_commit(c)]
    if unknown:
        print(f"bench.run: {unknown[0]!r} is not a commit of this repository", file=sys.stderr)
        return 2
    sides = _sides(args.peers, args.upgrade_peers, args.baseline)
    with _measured_src(args.at) as src, _measured_src(args.baseline) as baseline_src:
        srcs = {s.name: baseline_src if s.is_baseline else src for s in sides if s.is_steadyflow}
        raw: dict[str, Any] = {"meta": _meta(profile, args.at, args.baseline, sides)}
        raw["runs"] = _run_scenarios(profile, sides, srcs)
        raw["imports"] = _run_imports(profile, sides, srcs)
        raw["storm"] = _storm(profile, src)
    raw["packages"] = _packages(sides)
    raw["meta"]["load_at_end"] = os.getloadavg()
    raw["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    _publish(raw, readme)
    return 0


def _publish(raw: dict[str, Any], readme: Path | None) -> None:
    """The results everywhere: bench/README.md, and for a full run the pages' short table."""
    report.publish(raw, RESULTS, readme=readme)
    if readme is not None and raw["meta"]["profile"] == scenarios.FULL.name:
        overview.update_pages(raw, envs.REPO)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
