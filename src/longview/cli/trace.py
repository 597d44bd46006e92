"""`longview trace PATH`: session transcripts in readable form, or the requests the agent was sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from longview.harness import registry
from longview.harness.terminal.console import console, err, fail
from longview.kernel.errors import LongviewError, terminal_safe


def _suite_of_trace(path: Path) -> Any | None:
    """The suite of the run a transcript belongs to (its manifest in a parent folder), if any."""
    from longview.harness.runstore import Manifest

    for parent in [path, *path.parents][:4]:
        m = parent / "manifest.json"
        if m.is_file():
            try:
                return registry.load(Manifest.model_validate_json(m.read_text()).suite)
            except (LongviewError, ValueError):
                return None
    return None


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--raw", is_flag=True, help="Print every request the agent was sent (system prompt, tools, messages, "
              "parameters) as JSON, as an OpenAI-compatible server received it.")
@click.option("--turn", type=int, default=None, help="With --raw: only the requests of this assistant turn.")
def trace(path: Path, raw: bool, turn: int | None) -> None:
    """Print session transcripts (a .jsonl file or a cell folder) in readable form."""
    from longview.harness.transcript import trace_lines
    from longview.kernel.trace import read_trace

    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        fail(LongviewError(f"{path}: expected a session .jsonl file or a folder containing some"))
    suite = _suite_of_trace(path.resolve())
    render = suite.transcript if suite is not None else trace_lines
    for f in files:
        try:
            events = read_trace(f)
        except (ValueError, UnicodeDecodeError) as e:
            fail(LongviewError(f"{f}: not a longview transcript ({' '.join(str(e).split())[:200]})"))
        except RecursionError:
            fail(LongviewError(f"{f}: not a longview transcript (JSON nested too deep)"))
        except OSError as e:
            fail(LongviewError(f"{f}: cannot read ({e.strerror or e})"))
        if raw:
            _print_requests(f, events, turn)
            continue
        for line in render(events):  # model and dataset text must not drive the terminal
            console.print(terminal_safe(line), highlight=False, markup=False)
        console.print()


def _print_requests(path: Path, events: list[Any], turn: int | None) -> None:
    """`trace --raw`: the session's requests, rebuilt from its trace and its cell's stored prompts."""
    from longview.harness.transcript import model_requests, wire_body
    from longview.kernel.trace import read_prompt

    start = next((e for e in events if e.type == "session_start"), None)
    sha = str(start.data.get("prompt") or "") if start is not None else ""
    prompt = read_prompt(path.parent, sha)
    if prompt is None:
        err.print(f"note: {path.name}: the system prompt and tools were not kept (a run from before longview "
                  "recorded them); they are left out", highlight=False, markup=False)
    for req in model_requests(events, prompt):
        if turn is not None and req.turn != turn:
            continue
        console.print(f"# {path.stem} · request {req.index} · turn {req.turn} · {req.kind}", highlight=False, markup=False)
        body = json.dumps(wire_body(req), ensure_ascii=False, indent=2)
        console.print(terminal_safe(body), highlight=False, markup=False, soft_wrap=True)
