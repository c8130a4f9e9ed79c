"""Benchmarks of steadyflow against the runtimes users would otherwise pick.

``python -m bench.run`` (``make bench``) runs every scenario on every side;
``bench/README.md`` explains the method and holds the latest table. Modules
imported by peer workers (``common``, ``drivers``, ``worker`` and
``sides/<peer>``) use the standard library only, since they run in each
peer's own virtualenv.
"""
