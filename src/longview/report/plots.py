"""Vega-Lite specs (data inline) for the report's plots: forest plots of metrics with their
intervals between the reference floor and ceiling, paired differences, and the profile strip.
The browser compiles them with the vendored vega-lite and draws them as SVG."""

from __future__ import annotations

from typing import Any

PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"]


def _base(height: int, width: int = 330) -> dict[str, Any]:
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "width": width, "height": height,
            "config": {"view": {"stroke": None}, "axis": {"labelLimit": 260, "labelFontSize": 11, "titleFontSize": 11},
                       "legend": {"labelFontSize": 11, "titleFontSize": 11}}}


def bounds(points: list[dict[str, Any]], higher_is_better: bool = True) -> tuple[dict | None, dict | None]:
    """(floor, ceiling) among reference points: the worst and the best reference value."""
    refs = [p for p in points if p.get("ref") and p.get("value") is not None]
    if len(refs) < 2:
        return None, None
    lo = min(refs, key=lambda p: p["value"])
    hi = max(refs, key=lambda p: p["value"])
    if lo["value"] == hi["value"]:
        return None, None
    return (lo, hi) if higher_is_better else (hi, lo)


def forest(title: str, points: list[dict[str, Any]], *, higher_is_better: bool = True,
           variants: list[str] | None = None) -> dict[str, Any]:
    """One metric: a point and its 95% interval per row (label), coloured by variant; the
    reference floor and ceiling as dashed rules."""
    data = [p for p in points if p.get("value") is not None]
    for p in data:
        p["lo"] = p["value"] if p.get("lo") is None else p["lo"]
        p["hi"] = p["value"] if p.get("hi") is None else p["hi"]
        p["kind"] = "reference" if p.get("ref") else "model"
    floor, ceiling = bounds(points, higher_is_better)
    xs = [p[k] for p in data for k in ("value", "lo", "hi")]
    # Rates share one 0-1 axis so intervals compare across metrics; other metrics are zoomed.
    scale = {"domain": [0, 1]} if xs and min(xs) >= 0 and max(xs) <= 1 else {"zero": False, "nice": True}
    order = list(dict.fromkeys(p["label"] for p in data))
    y = {"field": "label", "type": "nominal", "sort": order, "title": None}
    # One colour per variant across every plot of the suite.
    color_scale = {"range": PALETTE} if not variants else {"domain": variants, "range": PALETTE[: len(variants)] or PALETTE}
    layers: list[dict[str, Any]] = [
        {"mark": {"type": "rule", "strokeWidth": 2},
         "encoding": {"y": y, "x": {"field": "lo", "type": "quantitative"}, "x2": {"field": "hi"},
                      "color": {"field": "variant", "type": "nominal", "scale": color_scale, "title": "variant"}}},
        {"mark": {"type": "point", "filled": True, "size": 60},
         "encoding": {"y": y, "x": {"field": "value", "type": "quantitative", "title": title, "scale": scale},
                      "color": {"field": "variant", "type": "nominal", "title": "variant", "scale": color_scale},
                      "shape": {"field": "kind", "type": "nominal", "title": "agent",
                                "scale": {"domain": ["reference", "model"], "range": ["square", "circle"]}},
                      "tooltip": [{"field": "label"}, {"field": "value", "format": ".3f"},
                                  {"field": "lo", "format": ".3f", "title": "95% lo"},
                                  {"field": "hi", "format": ".3f", "title": "95% hi"}, {"field": "n"}]}},
    ]
    marks = [dict(x=b["value"], name=name, what=f"{name}: {b['agent']}") for name, b in (("floor", floor), ("ceiling", ceiling)) if b]
    if marks:
        layers.append({"data": {"values": marks}, "mark": {"type": "rule", "strokeDash": [4, 3], "color": "#888"},
                       "encoding": {"x": {"field": "x", "type": "quantitative"},
                                    "tooltip": [{"field": "what"}, {"field": "x", "format": ".3f"}]}})
        layers.append({"data": {"values": marks}, "mark": {"type": "text", "fontSize": 9, "color": "#777", "dy": -4},
                       "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"value": 0},
                                    "text": {"field": "name"}}})
    spec = _base(max(40, 22 * len(order)))
    spec.update({"title": {"text": title, "fontSize": 12}, "data": {"values": data}, "layer": layers})
    return spec


def differences(title: str, points: list[dict[str, Any]]) -> dict[str, Any]:
    """Paired differences B − A per metric with their interval, and a zero rule."""
    data = [dict(p) for p in points if p.get("diff") is not None]
    for p in data:
        p.setdefault("lo", p["diff"])
        p.setdefault("hi", p["diff"])
    order = list(dict.fromkeys(p["label"] for p in data))
    y = {"field": "label", "type": "nominal", "sort": order, "title": None}
    xs = [p[k] for p in data for k in ("diff", "lo", "hi")] + [0.0]
    span = max(xs) - min(xs)
    pad = 0.05 if span == 0 else 0.0  # all differences zero: still a readable axis around 0
    scale = {"domain": [min(xs) - pad, max(xs) + pad], "nice": True}
    spec = _base(max(40, 22 * len(order)), width=380)
    spec.update({
        "title": {"text": title, "fontSize": 12},
        "data": {"values": data},
        "layer": [
            {"mark": {"type": "rule", "strokeWidth": 2, "color": "#4c78a8"},
             "encoding": {"y": y, "x": {"field": "lo", "type": "quantitative"}, "x2": {"field": "hi"}}},
            {"mark": {"type": "point", "filled": True, "size": 60, "color": "#4c78a8"},
             "encoding": {"y": y, "x": {"field": "diff", "type": "quantitative", "title": "B − A (paired, 95% CI)",
                                        "scale": scale},
                          "tooltip": [{"field": "label"}, {"field": "diff", "format": "+.3f"},
                                      {"field": "lo", "format": "+.3f"}, {"field": "hi", "format": "+.3f"},
                                      {"field": "n", "title": "paired units"}]}},
            {"data": {"values": [{"x": 0}]}, "mark": {"type": "rule", "color": "#888"},
             "encoding": {"x": {"field": "x", "type": "quantitative"}}},
        ],
    })
    return spec


def profile_strip(points: list[dict[str, Any]]) -> dict[str, Any]:
    """The proactivity profile: per suite, the reference floor-to-ceiling band and the model's
    headline value with its interval, on the share of that band (0 = floor, 1 = ceiling)."""
    data = [p for p in points if p.get("pos") is not None]
    order = [p["label"] for p in data]
    # A model may fall below its floor or above its ceiling: the axis grows to show it, never clips.
    ends = [v for p in data for v in (p.get("pos"), p.get("pos_lo"), p.get("pos_hi")) if v is not None]
    domain = {"domainMin": min([-0.05, *(v - 0.05 for v in ends)]), "domainMax": max([1.05, *(v + 0.05 for v in ends)])}
    y = {"field": "label", "type": "nominal", "sort": order, "title": None}
    spec = _base(max(40, 34 * len(order)), width=420)
    spec.update({
        "title": {"text": "Position between each suite's reference floor (0) and ceiling (1)", "fontSize": 12},
        "data": {"values": data},
        "layer": [
            {"mark": {"type": "bar", "color": "#e8e8e8", "height": 16},
             "encoding": {"y": y, "x": {"datum": 0, "type": "quantitative"}, "x2": {"datum": 1}}},
            {"mark": {"type": "rule", "strokeWidth": 2, "color": "#4c78a8"},
             "encoding": {"y": y, "x": {"field": "pos_lo", "type": "quantitative"}, "x2": {"field": "pos_hi"}}},
            {"mark": {"type": "point", "filled": True, "size": 90, "color": "#4c78a8"},
             "encoding": {"y": y, "x": {"field": "pos", "type": "quantitative", "title": "floor → ceiling",
                                        "scale": domain},
                          "tooltip": [{"field": "label"}, {"field": "metric"}, {"field": "value", "format": ".3f"},
                                      {"field": "floor", "format": ".3f"}, {"field": "ceiling", "format": ".3f"}]}},
        ],
    })
    return spec
