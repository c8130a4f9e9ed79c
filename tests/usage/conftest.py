"""Usage fixtures: the session-store fixtures, shared with tests/sessions."""

from tests.sessions.conftest import service, sql_url

__all__ = ["service", "sql_url"]
