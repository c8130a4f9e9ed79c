"""A test server that cannot start skips locally but fails in CI."""

from __future__ import annotations

import socket

import pytest

from tests.support.servers import free_port, server_unavailable


def test_an_unavailable_server_skips_the_test_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)

    with pytest.raises(pytest.skip.Exception, match="no initdb"):
        server_unavailable("no initdb")


def test_an_unavailable_server_fails_the_test_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")

    with pytest.raises(pytest.fail.Exception, match="unavailable in CI: no initdb"):
        server_unavailable("no initdb")


def test_free_port_gives_a_port_nothing_listens_on() -> None:
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))  # would raise if taken

    assert 0 < port < 65536
