from hypothesis import given
from hypothesis import strategies as st

from steadyflow.history.window import HistoryIndex


def index_of(*entries: tuple[str, list[str], list[str]], tokens: int = 1) -> HistoryIndex:
    """Entries as (kind, call ids, response ids); kind "u" is a user message."""
    index = HistoryIndex()
    for kind, call_ids, response_ids in entries:
        index.add(
            tokens=tokens,
            is_user=kind == "u",
            call_ids=[(i, "f") for i in call_ids],
            response_ids=[(i, "f") for i in response_ids],
        )
    return index


def plain(kind: str) -> tuple[str, list[str], list[str]]:
    return (kind, [], [])


def test_an_event_cap_keeps_the_newest_entries():
    index = index_of(*[plain("u"), plain("m")] * 10)
    window = index.fit(4, by_tokens=False)
    assert (window.start, window.pinned, window.events) == (16, (), 4)


def test_a_cut_between_a_call_and_its_response_moves_past_the_pair():
    index = index_of(plain("u"), ("m", ["c1"], []), ("m", [], ["c1"]), plain("m"), plain("u"))
    window = index.fit(3, by_tokens=False)
    assert window.start == 3
    assert window.pinned == ()


def test_the_current_turn_is_kept_whole_even_over_the_cap():
    index = index_of(plain("u"), plain("m"), plain("u"), plain("m"), plain("m"), plain("m"))
    window = index.fit(2, by_tokens=False)
    assert window.start == 2
    assert window.events == 4


def test_a_long_running_call_answered_in_the_current_turn_is_pinned_ahead_of_the_window():
    index = index_of(
        plain("u"),
        ("m", ["lr", "quick"], []),
        ("m", [], ["quick"]),
        *[plain("u"), plain("m")] * 20,
        ("u", [], ["lr"]),
        plain("m"),
    )
    window = index.fit(4, by_tokens=False)
    assert window.pinned == (1, 2)
    assert window.start == len(index) - 2
    assert window.events == 4


def test_a_token_budget_keeps_the_longest_suffix_under_it():
    index = HistoryIndex()
    for tokens in [50, 10, 20, 30, 40]:
        index.add(tokens=tokens, is_user=True)
    window = index.fit(75, by_tokens=True)
    assert (window.start, window.tokens) == (3, 70)


def test_the_window_never_starts_before_the_floor():
    index = index_of(*[plain("u")] * 10)
    assert index.fit(100, by_tokens=False, floor=6).start == 6


def test_reserved_cost_shrinks_the_window():
    index = index_of(*[plain("u")] * 10)
    assert index.fit(5, by_tokens=False, reserved=1).events == 4


def test_responses_without_ids_pair_with_the_latest_call_of_that_name():
    index = HistoryIndex()
    index.add(tokens=1, is_user=True)
    index.add(tokens=1, is_user=False, call_ids=[(None, "f")])
    index.add(tokens=1, is_user=False, response_ids=[(None, "f")])
    index.add(tokens=1, is_user=True)
    assert index.window(2).pinned == (1,)


@given(st.lists(st.integers(1, 50), min_size=1, max_size=60), st.integers(1, 400))
def test_token_fit_is_the_longest_suffix_under_budget(costs, budget):
    index = HistoryIndex()
    for cost in costs:
        index.add(tokens=cost, is_user=False)
    index.add(tokens=1, is_user=True)
    window = index.fit(budget, by_tokens=True)
    assert window.tokens <= max(budget, 1)
    if window.start > 0:
        assert window.tokens + costs[window.start - 1] > budget
