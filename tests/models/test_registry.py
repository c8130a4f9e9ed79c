import pytest

from steadyflow import ModelNotFoundError
from steadyflow.models import LlmRegistry
from steadyflow.testing import ScriptedLlm


def test_registered_pattern_resolves_to_its_factory():
    LlmRegistry.register(r"test-echo-.*", lambda name: ScriptedLlm([], model=name))
    try:
        llm = LlmRegistry.resolve("test-echo-1")
        assert isinstance(llm, ScriptedLlm) and llm.model == "test-echo-1"
        assert LlmRegistry.resolve("test-echo-1") is llm
    finally:
        LlmRegistry.unregister(r"test-echo-.*")


def test_unknown_name_lists_registered_patterns():
    LlmRegistry.register(r"test-known-.*", lambda name: ScriptedLlm([], model=name))
    try:
        with pytest.raises(ModelNotFoundError, match=r"test-known-\.\*"):
            LlmRegistry.resolve("mystery-model")
    finally:
        LlmRegistry.unregister(r"test-known-.*")


def test_later_registration_wins():
    LlmRegistry.register(r"test-dup", lambda name: ScriptedLlm([], model="first"))
    LlmRegistry.register(r"test-d.p", lambda name: ScriptedLlm([], model="second"))
    try:
        assert LlmRegistry.resolve("test-dup").model == "second"
    finally:
        LlmRegistry.unregister(r"test-dup")
        LlmRegistry.unregister(r"test-d.p")
