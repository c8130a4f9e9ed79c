"""Load the agent a command names: a Python file or a module path.

``path/to/agent.py`` must define ``root_agent`` (``path/to/agent.py:attr``
names another attribute); ``package.module:attr`` (or ``package.module``,
meaning ``:root_agent``) is imported from ``sys.path`` and the current
folder. A file's own folder is put on ``sys.path`` first, so an agent file
can import its neighbours.

The module may also carry its run settings: a module-level
``run_config = RunConfig(...)`` is what ``run``, ``serve``, ``resume``,
``confirm`` and ``worker`` start from, each flag given on the command line
overriding its field (``load_agent_file``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ..agents.base_agent import BaseAgent
from ..errors import ModelNotFoundError
from ..models.base import BaseLlm
from ..models.registry import LlmRegistry
from ..run_config import RunConfig
from ._check import llm_agents, unknown_model
from ._errors import CliError

__all__ = ["ROOT_AGENT", "RUN_CONFIG", "load_agent", "load_agent_file", "override_model"]

ROOT_AGENT = "root_agent"
RUN_CONFIG = "run_config"
_HINT = "pass a .py file that defines root_agent, or package.module:attr"


def _split(spec: str) -> tuple[str, str]:
    """``(target, attribute)``; a Windows drive colon is not an attribute separator."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not attr.isidentifier():
        return spec, ROOT_AGENT
    return target, attr


def _looks_like_path(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise CliError(f"agent file {str(path)!r} not found; {_HINT}")
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"steadyflow_agent_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot import {str(path)!r} as Python; {_HINT}")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        sys.modules.pop(name, None)
        failure = f"{type(error).__name__}: {error}"
        raise CliError(f"importing {str(path)!r} failed: {failure}") from error
    return module


def _import_module(name: str) -> ModuleType:
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            raise CliError(f"no module named {name!r}; {_HINT}") from error
        raise CliError(f"importing {name!r} failed: {error}") from error
    except Exception as error:
        raise CliError(f"importing {name!r} failed: {type(error).__name__}: {error}") from error


def load_agent(spec: str) -> BaseAgent:
    """The agent ``spec`` names (see ``load_agent_file``)."""
    return load_agent_file(spec)[0]


def load_agent_file(spec: str) -> tuple[BaseAgent, RunConfig | None]:
    """The agent ``spec`` names, and its module's ``run_config`` if it defines one.

    Raises:
        CliError: the file or module is missing, fails to import, or has no
            such attribute, or the attribute is not an agent, or
            ``run_config`` is not a ``RunConfig``.
    """
    if not spec.strip():
        raise CliError(f"no agent given; {_HINT}")
    target, attr = _split(spec.strip())
    module = _import_file(Path(target)) if _looks_like_path(target) else _import_module(target)
    where = target
    if not hasattr(module, attr):
        raise CliError(f"{where} defines no {attr!r}; add `{attr} = LlmAgent(...)` or name another")
    agent = getattr(module, attr)
    if not isinstance(agent, BaseAgent):
        raise CliError(
            f"{where}:{attr} is a {type(agent).__name__}, not an agent; make it an LlmAgent"
        )
    settings = getattr(module, RUN_CONFIG, None)
    if settings is not None and not isinstance(settings, RunConfig):
        raise CliError(
            f"{where}:{RUN_CONFIG} is a {type(settings).__name__}, not a RunConfig; "
            f"write `{RUN_CONFIG} = RunConfig(...)` or rename it"
        )
    return agent, settings


def override_model(root: BaseAgent, name: str) -> BaseLlm:
    """Resolve ``name`` now (so a bad one fails before the run) and give it to every LlmAgent.

    Raises:
        CliError: no registered pattern matches ``name``, or its provider's
            extra is not installed.
    """
    try:
        llm = LlmRegistry.resolve(name)
    except ImportError as error:
        raise CliError(f"model {name!r} needs an extra: {error}") from error
    except ModelNotFoundError as error:
        raise unknown_model(name) from error
    except ValueError as error:  # a factory refusing the name (ConfigurationError)
        raise CliError(f"model {name!r}: {' '.join(str(error).split())}") from error
    for agent in llm_agents(root):
        agent.use_model(llm)
    return llm
