"""Import the released ATRBench data: ``PATH/data/personas/<pid>/episodes/*.json`` with
``PATH/ontology/tools.yaml``.

Episodes are validated strictly (the same models and cross-checks as any dataset) and run on
longview's own six-domain environment unchanged. The release's ontology must agree with ours:
every tool it declares must exist here with the same parameters, or the import stops, naming the
tool and the difference.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from longview.domains.personal import all_tool_names, tool_spec
from longview.kernel.errors import DataError
from longview.suites.atr.dataset import Dataset, hash_files, load_episode


def _check_ontology(path: Path) -> None:
    file = str(path)
    try:
        onto = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise DataError(file, "<file>", "<root>", f"readable UTF-8 YAML ({' '.join(str(e).split())[:200]})") from None
    except RecursionError:
        raise DataError(file, "<file>", "<root>", "YAML of sane nesting depth") from None
    if not isinstance(onto, dict) or not isinstance(onto.get("domains"), dict):
        raise DataError(file, "<root>", "domains", "a mapping of domain name -> {tools: [...]}")
    ours = all_tool_names()
    sections = [(f"domains.{d}", v.get("tools", []) if isinstance(v, dict) else None) for d, v in onto["domains"].items()]
    sections.append(("base_tools", (onto.get("base_tools") or {}).get("tools", [])))
    for where, tools in sections:
        if not isinstance(tools, list):
            raise DataError(file, where, "tools", "a list of tool records")
        for i, t in enumerate(tools):
            name = t.get("name") if isinstance(t, dict) else None
            rec = f"{where}.tools[{i}]" + (f" ({name})" if name else "")
            if not name:
                raise DataError(file, rec, "name", "a tool name")
            if name not in ours:
                raise DataError(file, rec, "name", f"a tool longview implements (unknown tool '{name}')")
            spec = {p.name: (p.type, p.required) for p in tool_spec(name).parameters}
            params = t.get("parameters") or []
            if not isinstance(params, list) or not all(isinstance(p, dict) for p in params):
                raise DataError(file, rec, "parameters", "a list of parameter records")
            theirs = {str(p.get("name")): (p.get("type"), bool(p.get("required"))) for p in params}
            if spec != theirs:
                diff = sorted(set(spec.items()) ^ set(theirs.items()))
                raise DataError(file, rec, "parameters", f"the parameters longview implements (differs on {diff})")


def load_atrbench(root: Path) -> Dataset:
    """Load a released ATRBench folder as a dataset."""
    onto = root / "ontology" / "tools.yaml"
    if not onto.is_file():
        raise DataError(str(root), "<dataset>", "ontology/tools.yaml", "the release's tool ontology file")
    _check_ontology(onto)
    files = sorted((root / "data" / "personas").glob("*/episodes/*.json"))
    if not files:
        raise DataError(str(root), "<dataset>", "data/personas/*/episodes/*.json", "at least one episode file")
    tools = all_tool_names()
    episodes = [load_episode(p, tools) for p in files]
    seen: dict[str, Path] = {}
    for p, ep in zip(files, episodes, strict=True):
        if ep.persona_id in seen:
            # One episode per persona: several seeds of a persona are separate runs, not one cohort.
            raise DataError(str(p), ep.episode_id, "persona_id", f"one episode per persona ('{ep.persona_id}' also in {seen[ep.persona_id]})")
        seen[ep.persona_id] = p
    return Dataset(name=f"atrbench:{root}", sha256=hash_files(files + [onto]), episodes=episodes)
