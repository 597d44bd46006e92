"""API keys: read from the environment or a local ``.env``, and scrubbed from any text we emit.

Keys live only in ``os.environ`` (a ``.env`` file merely fills gaps there) and in the HTTP
``Authorization`` header. :func:`redact` is the last line of defence for every string that leaves
the process: exception reasons, traces, manifests.
"""

from __future__ import annotations

import os
from pathlib import Path

SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
MASK = "***"
# Values shorter than this are not masked: a one- or two-character "secret" would shred all text.
_MIN_SECRET_LEN = 4

_dotenv_values: dict[str, str] = {}
_loaded_from: set[Path] = set()


def parse_dotenv(text: str) -> dict[str, str]:
    """Parse simple ``KEY=VALUE`` lines (``export`` prefix, quotes and ``#`` comments allowed)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            # Unquoted values may carry a trailing comment, as in most dotenv dialects.
            value = value.split(" #", 1)[0].rstrip()
        out[key] = value
    return out


def load_dotenv(path: str | Path | None = None) -> dict[str, str]:
    """Load ``.env`` (default: in the working directory) into ``os.environ`` without overriding.

    Each file is read once per process. Returns the values the file defines (all of them are
    treated as secrets by :func:`redact`, whether or not they were applied).
    """
    p = Path(path) if path is not None else Path.cwd() / ".env"
    try:
        p = p.resolve()
    except OSError:
        return {}
    if p in _loaded_from:
        return {}
    _loaded_from.add(p)
    try:
        values = parse_dotenv(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}
    for key, value in values.items():
        os.environ.setdefault(key, value)
    _dotenv_values.update(values)
    return values


def get_key(env_var: str) -> str | None:
    """The value of ``env_var`` from the environment, after consulting ``./.env``; None if unset."""
    load_dotenv()
    value = os.environ.get(env_var, "").strip()
    return value or None


_scan: tuple[dict, dict, list[str]] | None = None  # (environment snapshot, .env values, result)


def _secret_values() -> list[str]:
    # redact() runs on every trace line: decoding and scanning the whole environment each time
    # cost a quarter of a run. A snapshot compare (C-level, on the raw environment) is enough to
    # know whether the previous scan still holds.
    global _scan
    raw = getattr(os.environ, "_data", None)
    snapshot = dict(raw if raw is not None else os.environ)
    if _scan is not None and _scan[0] == snapshot and _scan[1] == _dotenv_values:
        return _scan[2]
    values = {v for k, v in os.environ.items() if k.upper().endswith(SECRET_SUFFIXES)}
    values.update(_dotenv_values.values())
    # Longest first so a key that contains another key is masked whole.
    result = sorted((v for v in values if len(v) >= _MIN_SECRET_LEN), key=len, reverse=True)
    _scan = (snapshot, dict(_dotenv_values), result)
    return result


def redact(text: str) -> str:
    """Replace every known secret value in ``text`` with ``***``."""
    if not text:
        return text
    for value in _secret_values():
        if value in text:
            text = text.replace(value, MASK)
    return text

