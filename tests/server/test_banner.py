"""``steadyflow serve`` prints a banner with a viewer link; the token stays out of the logs."""

from __future__ import annotations

import httpx
import pytest

from tests.server.serve_process import ROOT, serve_process

pytestmark = pytest.mark.slow  # a child process

TOKEN = "tok/en+with=odd&chars"
EXAMPLE = str(ROOT / "examples" / "order_support.py")


def test_the_banner_names_the_app_the_api_and_a_viewer_link_with_the_token(tmp_path) -> None:
    db = f"sqlite:///{tmp_path / 'sessions.db'}"
    args = [EXAMPLE, "--port", "0", "--session-db", db, "--emulator", "--log-level", "debug"]
    with serve_process(tmp_path, *args, env={"STEADYFLOW_AUTH_TOKEN": TOKEN}) as served:
        api = served.field("API")
        viewer = served.field("viewer")
        assert served.banner[0] == "steadyflow serve · app order_support"
        assert api.startswith("http://127.0.0.1:") and not api.endswith(":0")
        assert viewer == f"{api}/#token=tok%2Fen%2Bwith%3Dodd%26chars"
        assert served.field("sessions") == db
        headers = {"authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"{api}/apps", headers=headers).status_code == 200
        assert httpx.get(viewer).status_code == 200  # what a browser sends: no fragment
        assert httpx.get(f"{api}/apps").status_code == 401
    log = served.output().replace(viewer, "VIEWER-LINK")  # the banner's link is the one place
    assert "GET /apps HTTP/1.1" in log  # the access log is on
    assert TOKEN not in log and "tok%2Fen" not in log and "tok/en" not in log


def test_without_a_token_the_viewer_link_is_plain(tmp_path) -> None:
    db = f"sqlite:///{tmp_path / 'sessions.db'}"
    with serve_process(
        tmp_path, EXAMPLE, "--port", "0", "--session-db", db, "--emulator"
    ) as served:
        assert served.field("viewer") == served.field("API") + "/"
