"""The emulator's command line: arguments, scripts from JSON, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadyflow.testing.emulator import Reply, ToolCall, main
from steadyflow.testing.emulator._cli import build_parser, load_script


def test_defaults_bind_loopback_on_a_free_port() -> None:
    args = build_parser().parse_args([])
    assert (args.host, args.port, args.fault, args.seed) == ("127.0.0.1", 0, [], 0)


def test_script_file_holds_text_calls_and_chunked_answers(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            [
                "plain",
                {"tool_calls": [{"name": "lookup_order", "args": {"order_id": "812"}}]},
                {"chunks": ["Or", "der"], "finish": "length"},
            ]
        )
    )
    assert load_script(path) == [
        "plain",
        Reply(tool_calls=(ToolCall("lookup_order", {"order_id": "812"}),)),
        Reply(text="Order", chunks=("Or", "der"), finish="length"),
    ]


def test_bad_fault_spec_exits_with_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--fault", "teapot@1"])
    assert caught.value.code == 2
    assert "teapot" in capsys.readouterr().err


def test_script_that_is_not_a_list_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "script.json"
    path.write_text('{"text": "x"}')
    with pytest.raises(SystemExit):
        main(["--script", str(path)])
    assert "JSON list" in capsys.readouterr().err
