"""Hostile data stays data: a report of runs whose every field a dataset, a model reply, a tool
output, a run-folder name and a hand-edited run folder can fill holds markup and script is opened in
headless Chromium, every interactive element is used, and no planted script runs.

How the values get there, for every registered suite:

* the suite's sample dataset, with a payload appended to every string field the loader still accepts
  (fields whose values would break the format are left alone; ids are refused by the id alphabet);
* a scripted model (its name hostile too) whose replies, messages to the user, tool names and
  arguments are payloads, so tool results and errors echo them;
* a run folder whose name is a payload;
* then, by hand, what only a damaged or forged run folder can hold: ids with markup (cell folder,
  session file, marker fields, scorecard units, breakdown buckets, metric names), manifest fields,
  abort reasons, unknown trace events, and a profile and comparison built on those.

The report is opened twice: as written (its Content-Security-Policy active) and with the policy
stripped, so the escaping alone is checked too. Each payload would push its number onto
``window.__lv_ran`` (created before the page by an init script); the test asserts that list stays
empty, no dialog opened, no policy violation or console error happened, no request left the page,
and no element carries an event handler, a foreign URL or a tag that only a payload would add.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from browserkit import MISSING, open_page

from longview.harness import registry
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.errors import LongviewError
from longview.kernel.models import register_script, unregister_script
from longview.report.build import auto_comparisons, load_runs, write_report

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

PAYLOADS = [
    '<img src=x onerror="__lv_ran.push(1)">',
    "</script><script>__lv_ran.push(2)</script>",
    '"><svg onload=__lv_ran.push(3)>',
    "'><iframe srcdoc=\"<script>parent.__lv_ran.push(4)</script>\"></iframe>",
    "javascript:__lv_ran.push(5)//",
    "<!--<script>__lv_ran.push(6)</script>-->",
    '<a href="javascript:__lv_ran.push(7)" id=lvpwn>x</a>',
    "<style>*{display:none}</style><base href=http://example.invalid/>",
]
# In a file or folder name: no '/', so the payloads without one.
NAME_PAYLOAD = '<img src=x onerror="__lv_ran.push(8)"> \'"'
MODEL = 'mock/hostile<img src=x onerror="__lv_ran.push(9)">'


def payload(i: int) -> str:
    return PAYLOADS[i % len(PAYLOADS)]


# ---------------------------------------------------------------- the hostile model


def hostile_model(system, messages, tools):
    """Replies with payloads: text, a message to the user, a real tool and an unknown one called
    with payload arguments (so results and errors echo them), then stops."""
    names = [t["function"]["name"] for t in tools]
    n = sum(1 for m in messages if m.role == "assistant")
    if n == 0:
        calls = [ToolCall(id="h0", name="<img src=x onerror=__lv_ran.push(10)>", arguments={"q": payload(1)})]
        real = [x for x in names if x not in ("finish_session", "send_to_user")]
        if real:
            calls.append(ToolCall(id="h1", name=real[0], arguments={k: payload(i) for i, k in enumerate(
                ["query", "id", "text", "title", "name", "path", "q"])}))
        return AssistantTurn(text=payload(0) + " " + payload(5), tool_calls=calls)
    if n == 1 and "send_to_user" in names:
        return AssistantTurn(text=payload(2), tool_calls=[ToolCall(id="h2", name="send_to_user",
                                                                   arguments={"output": payload(3) + payload(6)})])
    if "finish_session" in names:
        return AssistantTurn(text=payload(4), tool_calls=[ToolCall(id=f"h{n}", name="finish_session", arguments={})])
    return AssistantTurn(text=payload(7))


# ---------------------------------------------------------------- the hostile dataset


def _leaves(obj: Any, path: tuple = ()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, (*path, i))
    elif isinstance(obj, str):
        yield path


def _set(obj: Any, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def poison_dataset(suite, spec: str, folder: Path) -> int:
    """Append a payload to every string field (grouped by key name, kept only if the loader still
    accepts the file); returns how many keys carry one."""
    options = harness.suite_options(suite, {})
    files = sorted(p for p in folder.rglob("*.json") if p.is_file())
    docs = {f: json.loads(f.read_text(encoding="utf-8")) for f in files}
    keys: dict[Any, list[tuple[Path, tuple]]] = {}
    for f, doc in docs.items():
        for path in _leaves(doc):
            keys.setdefault(path[-1] if isinstance(path[-1], str) else (path[-2] if len(path) > 1 else "<list>"),
                            []).append((f, path))
    kept = 0
    for i, (_key, where) in enumerate(keys.items()):
        old = [_get(docs[f], p) for f, p in where]
        for f, p in where:
            _set(docs[f], p, _get(docs[f], p) + " " + payload(i))
        for f in {f for f, _ in where}:
            f.write_text(json.dumps(docs[f]), encoding="utf-8")
        try:
            suite.load_dataset(spec, options)
            kept += 1
        except (LongviewError, ValueError):
            for (f, p), v in zip(where, old, strict=True):
                _set(docs[f], p, v)
            for f in {f for f, _ in where}:
                f.write_text(json.dumps(docs[f]), encoding="utf-8")
    return kept


# ---------------------------------------------------------------- what only a forged run folder holds


def plant(run: Path) -> None:
    """Ids with markup and hostile text in the places a damaged or forged run folder can hold them."""
    card = json.loads((run / "scorecard.json").read_text())
    row = card["rows"][0]
    row.setdefault("per_unit", {})[NAME_PAYLOAD] = {k: 0.5 for k in row.get("metrics", {})}
    row["extra"] = {**(row.get("extra") or {}), "by_" + payload(0): {payload(2): 0.25, payload(3): 0.75}}
    row["abort_reasons"] = {payload(1): payload(6)}
    card["metrics"][payload(7)] = {"description": payload(0), "kind": "judged", "by": payload(4)}
    row["metrics"][payload(7)] = 0.5
    row["ci95"] = {**(row.get("ci95") or {}), payload(7): [0.25, 0.75]}
    card["dataset"]["name"] = payload(1)
    (run / "scorecard.json").write_text(json.dumps(card))

    manifest = json.loads((run / "manifest.json").read_text())
    manifest["created"] = payload(0)
    manifest["git_commit"] = payload(1)
    manifest["components"] = {**(manifest.get("components") or {}), payload(2): payload(3)}
    manifest["dataset"]["name_shown"] = payload(5)
    (run / "manifest.json").write_text(json.dumps(manifest))

    cells = sorted(p for p in (run / "cells").iterdir() if p.is_dir())
    source = next(c for c in cells if any(c.glob("*.jsonl")))
    forged = run / "cells" / (NAME_PAYLOAD + "__x__" + NAME_PAYLOAD)
    shutil.copytree(source, forged)
    marker = json.loads((forged / "result.json").read_text()) if (forged / "result.json").is_file() else {}
    marker.update({"agent": payload(0), "variant": payload(1), "unit": payload(2), "status": "aborted",
                   "abort_reason": payload(3)})
    (forged / "result.json").write_text(json.dumps(marker))
    trace = sorted(forged.glob("*.jsonl"))[0]
    lines = trace.read_text().splitlines()
    extra = [{"seq": 900, "session_id": payload(4), "turn": payload(5), "type": payload(6), "clock": payload(7),
              "data": {payload(0): payload(1), "nested": {"x": [payload(2)]}}},
             {"seq": 901, "session_id": "s", "turn": 0, "type": "assistant_turn", "clock": "2026-01-01T00:00:00",
              "data": {"text": payload(3), "usage": {"input_tokens": payload(0), "output_tokens": payload(1)},
                       "tool_calls": [{"id": payload(2), "name": payload(4), "arguments": payload(5)}]}},
             {"seq": 902, "session_id": "s", "turn": 0, "type": "tool_call", "clock": payload(1),
              "data": {"call_id": "nope", "name": payload(6), "ok": False, "error": payload(7), "output": payload(0)}},
             {"seq": 903, "session_id": "s", "type": "session_start", "data": {"phase": payload(1), "agent": payload(2),
                                                                             "tools": [payload(3)]}},
             {"seq": 904, "session_id": "s", "type": "session_end", "data": {"reason": payload(4), "turns": payload(5)}}]
    (forged / (NAME_PAYLOAD + ".jsonl")).write_text("\n".join(lines + [json.dumps(e) for e in extra]) + "\n")


HOSTILE_PROFILE = {
    "model": MODEL, "quick": True, "quick_note": payload(1),
    "lines": [{"suite": payload(2), "label": payload(0), "metric": payload(3), "value": 0.5, "ci95": [0.4, 0.6],
               "floor": 0.1, "ceiling": 0.9, "floor_agent": payload(4), "ceiling_agent": payload(5), "pos": 0.5,
               "pos_lo": 0.375, "pos_hi": 0.625, "reading": payload(6)}],
}


@pytest.fixture(scope="session")  # made before the browser starts its event loop
def hostile_report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    register_script(MODEL.removeprefix("mock/"), hostile_model)
    runs = []
    try:
        for name in sorted(registry.available()):
            suite = registry.load(name)
            folder = root / "data" / name
            spec = suite.sample_dataset(folder)
            if spec is None:
                continue
            assert poison_dataset(suite, spec, folder) > 0, f"{name}: no field of the sample dataset took a payload"
            out = root / f"{name} {NAME_PAYLOAD}"
            harness.run(RunConfig(suite=name, dataset=spec, agents=["reference"], models=[MODEL], out=out, units=1,
                                  max_turns=3, max_attempts=1, allow_aborts=True, cache_dir=root / "cache"))
            plant(out)
            runs.append(out)
    finally:
        unregister_script(MODEL.removeprefix("mock/"))
    loaded = load_runs([*runs, runs[0]])  # the first run twice: a comparison section too
    return write_report(loaded, root / "report.html", title=payload(1), comparisons=auto_comparisons(loaded),
                        profile=HOSTILE_PROFILE)


# ---------------------------------------------------------------- in the browser

WATCH = """
window.__lv_ran = [];
window.__lv_csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__lv_csp.push(e.violatedDirective + " " + e.sample));
"""

USE_EVERYTHING = """async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (ok) => { for (let i = 0; i < 300 && !ok(); i++) await sleep(10); return ok(); };
  let used = 0;
  const click = async (el) => { el.click(); used++; await sleep(0); };
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  for (const a of Array.from(document.querySelectorAll("a, summary, button"))) await click(a);
  const pick = (sel, value) => { sel.value = value; sel.dispatchEvent(new Event("change")); used++; };
  for (const sel of Array.from(document.querySelectorAll("select"))) {
    for (const o of Array.from(sel.options)) { pick(sel, o.value); await sleep(0); }
    pick(sel, "");
  }
  // Every cell's first sessions (every session of a forged cell): each transcript, every fold in it.
  const cell = document.querySelector("#f-cell");
  for (const o of Array.from(cell.options).filter((o) => o.value !== "")) {
    pick(cell, o.value);
    const rows = Array.from(document.querySelectorAll("#list tr.srow"));
    const forged = o.textContent.includes("__lv_ran.push(1)");  // its agent is payload 0
    for (const r of rows.slice(0, forged ? rows.length : 1)) {
      const sid = r.querySelector(".sid").textContent;
      await click(r);
      if (!await until(() => document.querySelector("#transcript").dataset.sid === sid)) throw new Error("no transcript " + sid);
      for (const s of Array.from(document.querySelectorAll("#transcript summary")).slice(0, 4)) await click(s);
      document.querySelectorAll("#transcript details").forEach((d) => { d.open = true; });
    }
  }
  pick(cell, "");
  document.querySelector("#deep").click();
  await until(() => !document.querySelector("#count").textContent.startsWith("decompressing"));
  const q = document.querySelector("#q");
  for (const text of [__PAYLOADS__]) { q.value = text; q.dispatchEvent(new Event("input")); await sleep(200); used++; }
  return used;
}""".replace("__PAYLOADS__", ", ".join(json.dumps(p) for p in PAYLOADS))

DOM_PROBLEMS = """() => {
  const out = [];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (/^on/i.test(a.name)) out.push(`${el.tagName} has handler ${a.name}`);
      if (["href", "src", "action", "formaction", "srcdoc", "xlink:href"].includes(a.name.toLowerCase())
          && !a.value.startsWith("#")) out.push(`${el.tagName} ${a.name}=${a.value}`);
    }
    if (["IMG", "IFRAME", "OBJECT", "EMBED", "BASE", "FORM", "LINK", "META"].includes(el.tagName)
        && !(el.tagName === "META" && el.closest("head")) && !(el.tagName === "FORM" && el.closest(".plot")))
      out.push(`a ${el.tagName} element`);  // (Vega gives each view an empty form for its bindings)
  }
  if (document.querySelectorAll("script").length !== 6) out.push(`${document.querySelectorAll("script").length} scripts`);
  if (document.querySelectorAll("style").length !== 1) out.push(`${document.querySelectorAll("style").length} styles`);
  for (const s of document.querySelectorAll("svg")) if (!s.closest(".plot")) out.push("an svg outside the plots");
  if (document.getElementById("lvpwn")) out.push("a planted element id");
  return out;
}"""


def strip_policy(path: Path) -> Path:
    html = path.read_text(encoding="utf-8")
    out = path.with_name("no-csp.html")
    stripped, n = re.subn(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">', "", html)
    assert n == 1
    out.write_text(stripped, encoding="utf-8")
    return out


@pytest.mark.parametrize("policy", ["with its policy", "escaping alone (policy stripped)"])
def test_no_planted_script_runs_whatever_is_clicked(hostile_report: Path, browser, policy: str, tmp_path: Path):
    path = hostile_report if policy.startswith("with") else strip_policy(hostile_report)
    dialogs: list[str] = []
    page, problems, outside = open_page(browser, path, init_script=WATCH,
                                        on_dialog=lambda d: (dialogs.append(d.message), d.dismiss()))
    assert page.locator(".plot[data-rendered='1'] svg").count() == page.locator(".plot").count() > 0
    assert page.locator("#list tr.srow").count() > 10
    used = page.evaluate(USE_EVERYTHING)
    assert used > 100
    assert page.locator("a.chip.fail").count() > 0  # outcomes were read: failed-session chips exist
    # Real pointer clicks too, on what the reproduction used: failed-session chips, unit and run links.
    page.click("#f-clear")
    page.eval_on_selector_all("details", "els => els.forEach(e => e.open = true)")
    for sel in ("a.chip.fail", "a.flt", "#list tr.srow"):
        for i in range(min(3, page.locator(sel).count())):
            page.locator(sel).nth(i).scroll_into_view_if_needed()
            page.locator(sel).nth(i).click()
    for point in page.locator(".plot svg .mark-symbol path").all()[:5]:
        point.hover(force=True)  # a floor rule may lie over the point: the tooltip code runs either way
    page.screenshot(path=str(tmp_path / "hostile.png"), full_page=False)

    assert page.evaluate("() => window.__lv_ran") == []
    assert dialogs == []
    assert page.evaluate("() => window.__lv_csp") == []
    assert page.evaluate(DOM_PROBLEMS) == []
    assert problems == [], problems
    assert outside == [], outside
    # The payloads did reach the page, as text: in tables, in transcripts and in the run's name.
    text = page.locator("body").inner_text()
    for p in (PAYLOADS[0], PAYLOADS[1], PAYLOADS[3], NAME_PAYLOAD.strip()):
        assert p in text, p
    page.context.close()
