"""A database that refuses writes is one error line naming the store, never SQL or user text."""

from sqlalchemy.engine import Engine

from tests.cli.support import error_lines, invoke, session_ids
from tests.support.sqlite_faults import READ_ONLY, pragma_on_connect

SECRET_TEXT = "my card is 4242-4242"


def test_a_read_only_database_fails_the_turn_with_one_line_and_no_sql(cli, db, agent_file) -> None:
    assert invoke(cli, "run", agent_file('["hi"]'), "hello", "--session-db", db).exit_code == 0
    with pragma_on_connect(Engine, READ_ONLY):  # every engine, the CLI's too
        result = invoke(cli, "run", agent_file('["never"]'), SECRET_TEXT, "--session-db", db)
        assert len(session_ids(cli, db)) == 1  # reading still works
    assert result.exit_code == 1, (result.stdout, result.stderr)
    lines = error_lines(result)
    assert len(lines) == 1 and "SessionStoreError" in lines[0] and "readonly" in lines[0]
    assert "sessions.db" in lines[0]
    output = result.stdout + result.stderr
    assert "INSERT" not in output and "[SQL" not in output and SECRET_TEXT not in output
    assert "Traceback" not in output
