"""The ATRBench release's own prompt assets, read from the user's copy of the release (never shipped).

When the dataset is ``atrbench:PATH`` and PATH holds the release's runner prompts, a run can use
them instead of longview's own blocks, so its numbers sit next to the paper's. Layout read
(``runner/`` of a release checkout):

- ``prompts/agent.md``: named sections (a line ``--- name ---`` opens each): ``base``,
  ``domain_<domain>``, ``mode_learning``, ``mode_test``, ``send_protocol``, ``standing_rule_def``,
  ``variant_atr``, ``variant_always_ask``;
- ``prompts/router.md``, ``prompts/classifier.md``: one body each, with a few-shot placeholder
  filled from ``router_calibration/shots/*.json`` (``examples``) and ``cls_calibration/shots/*.json``
  (``match``: mini rule pools with user statements) — the newest bank by version number;
- ``prompts/user_sim.md``: sections ``open`` and ``reply``.

:func:`prompt_set` says which set a dataset runs with and the sha256 of every file it read, for the
run manifest. Nothing here contains release text; it only reads the user's files.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from longview.kernel.errors import DataError

PREFIX = "atrbench:"
AGENT_SECTIONS = (
    "base", "mode_learning", "mode_test", "send_protocol", "standing_rule_def", "variant_atr", "variant_always_ask",
)
DOMAINS = ("commerce", "reservation", "travel", "communication", "scheduling", "workspace")
FEW_SHOT_SLOT = "{{FEW_SHOT_EXAMPLES}}"
_SECTION = re.compile(r"^---\s+(\S+)\s+---\s*$", re.M)


class PromptSet(BaseModel):
    """Which prompt assets a run uses, and a hash of each file read."""

    name: Literal["longview", "atrbench-release"] = Field(description="longview's own blocks or the release's.")
    source: str = Field(description="Where they were read from (package, or the release checkout).")
    hashes: dict[str, str] = Field(description="sha256 of every file read, by relative path.")
    agent: dict[str, str] = Field(default_factory=dict, description="Agent prompt blocks by name (release only).")
    router: str | None = Field(default=None, description="Router system prompt with its few-shot bank (release).")
    classifier: str | None = Field(default=None, description="Classifier system prompt with its bank (release).")
    user: dict[str, str] = Field(default_factory=dict, description="User-simulator prompts: open, reply (release).")


def sections(path: Path) -> dict[str, str]:
    """A prompt file split at ``--- name ---`` lines ({'': whole file} when it has none)."""
    text = _read(path)
    parts = _SECTION.split(text)
    if len(parts) == 1:
        return {"": text.strip()}
    if parts[0].strip():
        raise DataError(str(path), "<file>", "<root>", "no text before the first '--- name ---' line")
    return {name: body.strip() for name, body in zip(parts[1::2], parts[2::2], strict=True)}


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise DataError(str(path), "<file>", "<root>", f"readable file ({err.strerror})") from None


def _bank(folder: Path) -> Path:
    """The newest few-shot bank in ``folder`` (highest vN.json)."""
    banks = sorted(folder.glob("v*.json"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    if not banks:
        raise DataError(str(folder), "<folder>", "shots", "at least one few-shot bank vN.json")
    return banks[-1]


def _json(path: Path) -> dict:
    try:
        data = json.loads(_read(path))
    except ValueError as err:
        raise DataError(str(path), "<file>", "<root>", f"valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise DataError(str(path), "<file>", "<root>", "a JSON object")
    return data


def _router_shots(bank: dict) -> str:
    out = []
    for i, ex in enumerate(bank.get("examples") or [], 1):
        positive = bool(ex.get("is_strict_rule_question"))
        verdict = {"is_strict_rule_question": positive, "rule_question_span": ex.get("rule_question_span") if positive else None}
        note = str(ex.get("note") or "").strip()
        out.append(f"### Example {i}\n<reason>{str(ex.get('reason') or '').strip()}</reason>\n"
                   f"<output>{str(ex.get('output') or '').strip()}</output>\nDecision:\n"
                   f"{json.dumps(verdict, ensure_ascii=False)}" + (f"\nNote: {note}" if note else ""))
    return ("## Examples\n\n" + "\n\n".join(out)) if out else ""


def _classifier_shots(bank: dict) -> str:
    out = []
    for i, ex in enumerate(bank.get("match") or [], 1):
        pool = "\n".join(f"  - rule_id={r['rule_id']}\n    user statement: {r['statement']}" for r in ex.get("rule_pool", []))
        rid = ex.get("rule_id")
        out.append(f"### Example {i}\nRule pool:\n{pool}\nAgent question: {ex.get('agent_text', '')}\n"
                   f"Decision: rule_id={json.dumps(rid) if rid else 'null'}, reasoning={json.dumps(ex.get('reasoning', ''))}")
    return "\n\n".join(out)


def load_release_prompts(root: Path) -> PromptSet:
    """Every prompt asset of a release checkout; a missing or malformed file is a DataError."""
    runner = root / "runner"
    files = {
        "agent": runner / "prompts/agent.md", "router": runner / "prompts/router.md",
        "classifier": runner / "prompts/classifier.md", "user": runner / "prompts/user_sim.md",
        "router_shots": _bank(runner / "router_calibration/shots"), "cls_shots": _bank(runner / "cls_calibration/shots"),
    }
    agent = sections(files["agent"])
    for name in AGENT_SECTIONS + tuple(f"domain_{d}" for d in DOMAINS):
        if name not in agent:
            raise DataError(str(files["agent"]), f"section {name}", "<section>", "present ('--- name ---' line)")
    user = sections(files["user"])
    for name in ("open", "reply"):
        if name not in user:
            raise DataError(str(files["user"]), f"section {name}", "<section>", "present ('--- name ---' line)")
    router = sections(files["router"]).get("", "").replace(FEW_SHOT_SLOT, _router_shots(_json(files["router_shots"])))
    classifier = sections(files["classifier"]).get("", "").replace(
        FEW_SHOT_SLOT, _classifier_shots(_json(files["cls_shots"])))
    hashes = {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files.values()}
    return PromptSet(name="atrbench-release", source=str(root), hashes=dict(sorted(hashes.items())), agent=agent,
                     router=router, classifier=classifier, user={k: user[k] for k in ("open", "reply")})


def has_release_prompts(root: Path) -> bool:
    return (root / "runner/prompts/agent.md").is_file()


def prompt_set(dataset: str) -> PromptSet:
    """The prompt set a run on ``dataset`` uses: the release's when the dataset is ``atrbench:PATH``
    and PATH holds its runner prompts, else longview's own (hashes of the shipped blocks)."""
    if dataset.startswith(PREFIX):
        root = Path(dataset[len(PREFIX):]).expanduser()
        if has_release_prompts(root):
            return load_release_prompts(root)
    from longview.suites.atr.variants import prompt_hashes

    return PromptSet(name="longview", source="longview.suites.atr/prompts", hashes=prompt_hashes())


def release_system_prompt(
    prompts: PromptSet, variant: str, domain: str, phase: Literal["learning", "test"], context: str
) -> str:
    """The agent's system prompt assembled from the release's blocks in the release's order: base,
    domain policy, ``<context>`` (only when there is some), the phase block, then in learning the
    send protocol and the variant's blocks."""
    a = prompts.agent
    parts = [a["base"], a[f"domain_{domain}"]]
    if context.strip():
        parts.append(f"<context>\n{context}\n</context>")
    parts.append(a[f"mode_{phase}"])
    if phase == "learning":
        parts.append(a["send_protocol"])
        if variant in ("atr", "always_ask"):
            parts += [a["standing_rule_def"], a[f"variant_{variant}"]]
    return "\n\n".join(parts)
