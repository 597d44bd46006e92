"""A suite longview knows nothing about (the out-of-tree toy suite, installed for real) gets a full
report through the CLI: its scorecard, plots, identity and every transcript."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

TOY = Path(__file__).parents[1] / "plugins" / "toy_suite"


def lv(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "LONGVIEW_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "longview", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_an_out_of_tree_suite_gets_a_report(tmp_path: Path):
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(site), str(TOY)], check=True, capture_output=True)
    r = lv(site, "run", "toy", "--out", "runs/toy", "-S", "offset=2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = lv(site, "report", "runs/toy", "-o", "toy.html", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "toy.html").read_text()
    assert 'id="suite-toy"' in html and "sums in separate sessions" in html
    assert "ref:right" in html and "ref:wrong" in html and "accuracy" in html
    data = json.loads(re.search(r'<script type="application/json" id="lv-data">(.*?)</script>', html, re.S).group(1))
    assert len(data["sessions"]) == len(list((tmp_path / "runs/toy").glob("cells/*/*.jsonl"))) == 24
    assert len(data["plots"]) == 1  # one metric: one forest plot
    assert "answer" in data["tools"]
