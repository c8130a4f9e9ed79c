import importlib
import subprocess
import sys

import steadyflow

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


def test_all_is_sorted_and_matches_the_public_names():
    public = {n for n in dir(steadyflow) if not n.startswith("_") and n[0].isupper()}
    assert steadyflow.__all__ == sorted(steadyflow.__all__)
    assert set(steadyflow.__all__) == public


def test_loading_every_public_name_imports_no_provider_sdk():
    code = (
        "import sys; from steadyflow import *;"
        "sdks=('openai','anthropic','google.genai','sqlalchemy','redis');"
        "bad=[m for m in sdks if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_importing_steadyflow_defers_its_submodules_until_a_name_is_used():
    code = (
        "import sys, steadyflow;"
        "print(sorted(m for m in sys.modules if m.startswith(('steadyflow.', 'pydantic'))"
        " and m != 'steadyflow._lazy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_the_agent_api_builds_no_pydantic_validator():
    code = (
        "import sys; from steadyflow import LlmAgent, InMemoryRunner;"
        "print('pydantic.plugin._loader' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
