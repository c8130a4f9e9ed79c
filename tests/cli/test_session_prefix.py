"""Commands taking a session id accept a unique prefix of it, as the viewer shows ids."""

from tests.cli.support import assert_one_line_error, invoke, session_ids


def common_prefix(a: str, b: str) -> str:
    size = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return a[:size]


def two_sessions(cli, db, agent_file) -> list[str]:
    path = agent_file('["first", "second"]')
    for text in ("one", "two"):
        assert invoke(cli, "run", path, text, "--session-db", db).exit_code == 0
    return session_ids(cli, db)


def test_trace_takes_a_unique_prefix(cli, db, agent_file) -> None:
    first, second = two_sessions(cli, db, agent_file)
    common = len(common_prefix(first, second))
    prefix = first[: common + 1]
    result = invoke(cli, "trace", prefix, "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "1 step · 1 attempt" in result.stdout


def test_a_prefix_as_the_viewer_shows_it_with_an_ellipsis_works(cli, db, agent_file) -> None:
    first, _ = two_sessions(cli, db, agent_file)
    result = invoke(cli, "sessions", "show", f"{first[:12]}…", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"session {first} ")


def test_a_prefix_of_several_sessions_is_one_line_exit_2(cli, db, agent_file) -> None:
    first, second = two_sessions(cli, db, agent_file)
    common = common_prefix(first, second)
    result = invoke(cli, "trace", common, "--session-db", db)
    assert_one_line_error(result, "starts 2 session ids", "give more of it")


def test_a_prefix_is_not_a_pattern(cli, db, agent_file) -> None:
    two_sessions(cli, db, agent_file)
    result = invoke(cli, "trace", "%", "--session-db", db)
    assert_one_line_error(result, "no session '%'")


def test_the_list_shows_the_first_message_and_the_last_turns_status(cli, db, agent_file) -> None:
    good = agent_file('["fine"]', name="good.py")
    bad = agent_file('[http_error(400, "no")]', name="bad.py")
    assert invoke(cli, "run", good, "Where is order 812?", "--session-db", db).exit_code == 0
    assert invoke(cli, "run", bad, "Cancel order 977", "--session-db", db).exit_code == 1
    listed = invoke(cli, "sessions", "list", "--session-db", db)
    header, *rows = [line.split() for line in listed.stdout.splitlines() if line.strip()]
    assert header[-4:] == ["last", "turn", "first", "message"]
    assert rows[0][-5:] == ["completed", "Where", "is", "order", "812?"]
    assert rows[1][-4:] == ["failed", "Cancel", "order", "977"]
