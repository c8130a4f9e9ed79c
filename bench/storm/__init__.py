"""Retry storm: overload a fixed-capacity provider and compare retry policies.

A simulation on a virtual clock (``vloop``): the real steadyflow runtime and
its real retry loop run unchanged, but every ``asyncio.sleep`` (the model's
latency, the retry waits) jumps time forward instead of waiting, so 30
simulated seconds of a 5x overload run in a few real seconds. The policies
compared are a registry (``policies.STORM_POLICIES``) that later entries,
such as a budget-aware policy, join with ``register_storm_policy``.
"""
