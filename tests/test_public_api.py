import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

DESIGN_NAMES = {
    "steadyflow": [
        "LlmAgent",
        "Runner",
        "InMemoryRunner",
        "RunConfig",
        "StreamingMode",
        "RetryConfig",
        "Content",
        "Part",
        "FunctionCall",
        "FunctionResponse",
        "Event",
        "EventActions",
        "FunctionTool",
        "ToolContext",
        "CallbackContext",
        "InMemorySessionService",
        "LlmCallsLimitExceededError",
    ],
    "steadyflow.models": ["BaseLlm", "LlmRequest", "LlmResponse", "LlmRegistry"],
    "steadyflow.testing": ["ScriptedLlm"],
}


def test_every_design_name_is_importable_from_where_design_says():
    for module_name, names in DESIGN_NAMES.items():
        module = importlib.import_module(module_name)
        for name in names:
            assert hasattr(module, name), f"{module_name}.{name}"
            assert name in module.__all__, f"{name} missing from {module_name}.__all__"


LAZY_PACKAGES = ["steadyflow", "steadyflow.retry"]


def type_checking_imports(module: types.ModuleType) -> set[str]:
    """The names a package imports under ``if TYPE_CHECKING:`` (what type checkers see)."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            if ast.unparse(node.test).startswith("not "):
                continue
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), ast.unparse(stmt)
                names.update(alias.asname or alias.name for alias in stmt.names)
    return names


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_all_is_sorted_and_matches_the_lazy_table_and_the_typed_imports(package: str):
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__)
    assert set(module.__all__) == set(module._LAZY)
    assert set(module.__all__) == type_checking_imports(module)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_each_lazy_name_is_the_object_its_submodule_defines(package: str):
    module = importlib.import_module(package)
    for name, submodule in module._LAZY.items():
        defined_in = importlib.import_module(f"{package}.{submodule}")
        assert getattr(module, name) is getattr(defined_in, name), name


@pytest.mark.slow  # a fresh interpreter
def test_loading_every_public_name_imports_no_provider_sdk():
    code = (
        "import sys; from steadyflow import *;"
        "sdks=('openai','anthropic','google.genai','sqlalchemy','redis');"
        "bad=[m for m in sdks if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.slow  # a fresh interpreter
def test_importing_steadyflow_defers_its_submodules_until_a_name_is_used():
    code = (
        "import sys, steadyflow;"
        "print(sorted(m for m in sys.modules if m.startswith(('steadyflow.', 'pydantic'))"
        " and m != 'steadyflow._lazy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow  # a fresh interpreter
def test_importing_the_agent_api_builds_no_pydantic_validator():
    code = (
        "import sys; from steadyflow import LlmAgent, InMemoryRunner;"
        "print('pydantic.plugin._loader' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
