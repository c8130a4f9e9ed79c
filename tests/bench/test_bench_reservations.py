"""The reservation bench counts what one attempt costs a SQL spend store (a regression guard)."""

from pathlib import Path

from bench.reservation_bench import sql_round


async def test_an_attempt_reserves_and_settles_in_two_transactions_on_sqlite(tmp_path: Path):
    figures = await sql_round(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", attempts=5)
    assert figures["transactions"] == 2.0  # the reservation, then the charge
    assert figures["statements"] == 5.0  # BEGIN IMMEDIATE, sum, insert; BEGIN IMMEDIATE, update
