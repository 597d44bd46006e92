"""``longview prefs calibrate``: how well the plain-text reader (reading.py) reports what replies
show, on a labelled set: per attribute and overall precision (of the settings it reports), recall
(of the labelled settings) and null_false_rate (replies labelled as showing no setting that it
reports as one). The shipped set (data/calibration.jsonl) was written for longview; the reader was
tuned on it, so a held-out set is what tells how it generalises."""

from __future__ import annotations

import json
from collections import defaultdict
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from longview.kernel.errors import DataError
from longview.suites.prefs.model import taxonomy
from longview.suites.prefs.reading import ReplyContext, read_reply


class Labelled(BaseModel):
    """One line of a calibration set."""

    model_config = {"extra": "forbid"}

    attribute: str = Field(description="Attribute id (e.g. verbosity).")
    setting: str | None = Field(description="The setting the reply shows, or null when it shows none.")
    reply: str = Field(description="The plain-text reply as the user saw it.")
    request: str = Field(default="", description="The user's request it answers.")
    context: ReplyContext = Field(default_factory=ReplyContext, description="Calls made, held or failed; task facts.")


def builtin_set() -> Path:
    return Path(str(files("longview.suites.prefs").joinpath("data", "calibration.jsonl")))


def load_set(path: Path) -> list[Labelled]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise DataError(str(path), "<file>", "<root>", f"a readable file ({e.strerror})") from None
    out = []
    tax = taxonomy()
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = Labelled.model_validate(json.loads(line))
        except (ValueError, ValidationError) as e:
            err = e.errors()[0] if isinstance(e, ValidationError) else {"loc": ["<line>"], "msg": str(e)}
            raise DataError(str(path), f"line {i}", "/".join(str(x) for x in err["loc"]) or "<line>",
                            f"a labelled reply ({err['msg']})") from None
        if item.attribute not in tax.ids:
            raise DataError(str(path), f"line {i}", "attribute", f"one of {', '.join(tax.ids)}")
        if item.setting is not None and item.setting not in tax.attribute(item.attribute).setting_ids:
            raise DataError(str(path), f"line {i}", "setting",
                            f"null or one of {tax.attribute(item.attribute).setting_ids}")
        out.append(item)
    if not out:
        raise DataError(str(path), "<file>", "<root>", "at least one labelled reply")
    return out


def _scores(pairs: list[tuple[str | None, str | None]]) -> dict[str, float | int | None]:
    reported = [(g, p) for g, p in pairs if p is not None]
    labelled = [(g, p) for g, p in pairs if g is not None]
    nulls = [(g, p) for g, p in pairs if g is None]
    return {"n": len(pairs), "labelled": len(labelled), "nulls": len(nulls), "reported": len(reported),
            "precision": sum(g == p for g, p in reported) / len(reported) if reported else None,
            "recall": sum(g == p for g, p in labelled) / len(labelled) if labelled else None,
            "null_false_rate": sum(p is not None for _, p in nulls) / len(nulls) if nulls else None}


def calibrate(items: list[Labelled]) -> dict:
    by: dict[str, list[tuple[str | None, str | None]]] = defaultdict(list)
    misses = []
    for it in items:
        pred = read_reply(it.attribute, it.reply, it.context)
        by[it.attribute].append((it.setting, pred))
        if pred != it.setting:
            misses.append({"attribute": it.attribute, "label": it.setting, "read": pred, "reply": it.reply[:120]})
    allp = [x for v in by.values() for x in v]
    return {"overall": _scores(allp), "by_attribute": {a: _scores(by[a]) for a in taxonomy().ids if a in by},
            "misses": misses}
