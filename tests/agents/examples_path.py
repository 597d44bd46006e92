"""The repository's examples/ agents, importable by the tests (examples/ is not a package)."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("python_agent", Path(__file__).parents[2] / "examples" / "python_agent.py")
assert _spec is not None and _spec.loader is not None
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
EchoAgent = _mod.EchoAgent
