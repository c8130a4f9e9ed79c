"""The journal bench counts the durable writes a turn makes on SQLite (a regression guard)."""

from bench.journal_bench import measure


async def test_durable_writes_per_step_are_what_the_docs_say():
    results = await measure(turns=2, rounds=1)
    commits = {name: r["commits_per_step"] for name, r in results.items()}
    assert commits == {
        "memory/text": 0.0,
        "memory/tool": 0.0,
        "memory/parallel": 0.0,
        "sqlite/text": 3.0,  # user message, answer, record closed: one step
        "sqlite/tool": 3.0,  # 6 commits over 2 steps: the call's start is the 1 extra
        "sqlite/parallel": 3.5,  # 7 over 2 steps: the batch's start and its grouped results
    }
