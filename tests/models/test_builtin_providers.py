"""Model names resolve to the right adapter, lazily; a missing extra names what to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

from steadyflow.models import LlmRegistry
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.gemini import Gemini
from steadyflow.models.openai import GROQ, Groq, OpenAI


@pytest.mark.parametrize(
    ("name", "adapter", "model"),
    [
        ("gemini-2.5-flash", Gemini, "gemini-2.5-flash"),
        ("gemma-3-27b-it", Gemini, "gemma-3-27b-it"),
        ("gpt-4o-mini", OpenAI, "gpt-4o-mini"),
        ("o3-mini", OpenAI, "o3-mini"),
        ("openai/qwen2.5:7b", OpenAI, "qwen2.5:7b"),
        ("groq/llama-3.3-70b-versatile", OpenAI, "llama-3.3-70b-versatile"),
        ("groq/openai/gpt-oss-120b", OpenAI, "openai/gpt-oss-120b"),
        ("claude-sonnet-4-5", Anthropic, "claude-sonnet-4-5"),
    ],
)
def test_builtin_name_resolves_to_its_adapter(name: str, adapter: type, model: str) -> None:
    llm = LlmRegistry.resolve(name)
    assert type(llm) is adapter
    assert llm.model == model


@pytest.mark.parametrize(
    ("name", "provider"),
    [
        ("gemini-2.5-flash", "gemini"),
        ("gpt-4o", "openai"),
        ("groq/llama-3.3-70b-versatile", "groq"),
        ("claude-sonnet-4-5", "anthropic"),
    ],
)
def test_each_adapter_names_its_provider(name: str, provider: str) -> None:
    assert LlmRegistry.resolve(name).provider == provider


def test_groq_is_the_openai_adapter_preset_to_groqs_endpoint() -> None:
    llm = Groq("llama-3.3-70b-versatile")
    assert (type(llm), llm.provider) == (OpenAI, "groq")
    assert llm._base_url == GROQ.default_base_url == "https://api.groq.com/openai/v1"
    assert GROQ.api_key_env == ("GROQ_API_KEY",)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.slow  # a fresh interpreter
def test_importing_steadyflow_and_resolving_nothing_imports_no_sdk() -> None:
    result = _run(
        "import sys, steadyflow, steadyflow.models\n"
        "from steadyflow.models import LlmRegistry\n"
        "LlmRegistry.patterns()\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'google.genai') if m in sys.modules))"
    )
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.slow  # a fresh interpreter
def test_resolving_a_name_whose_extra_is_missing_says_what_to_install() -> None:
    # One interpreter per SDK would cost a second each; one loop checks them all.
    result = _run(
        "import sys\n"
        "from steadyflow.models import LlmRegistry\n"
        # Each SDK stays blocked for the next names: botocore goes first, with anthropic there.
        "pairs = (('botocore', 'bedrock/anthropic.claude-x-v1:0'), ('openai', 'gpt-4o'),\n"
        "         ('anthropic', 'claude-x'), ('google', 'gemini-x'))\n"
        "for sdk, name in pairs:\n"
        "    sys.modules[sdk] = None\n"
        "    try:\n"
        "        LlmRegistry.resolve(name)\n"
        "    except ImportError as error:\n"
        "        print(error)\n"
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 4, result.stderr
    for line, extra in zip(lines, ("bedrock", "openai", "anthropic", "gemini"), strict=True):
        assert f"pip install 'steadyflow[{extra}]'" in line
