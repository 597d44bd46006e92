"""API keys: read from the environment or a local ``.env``, and scrubbed from any text we emit.

Only *known* secrets are masked: the key variables longview reads for its providers (the
``key_env``/``secret_env`` of :data:`~longview.kernel.models.client.PROVIDERS`) plus any name
given to :func:`register_secret_env`, and only values of at least :data:`MIN_SECRET_LEN`
characters. Masking anything else (every ``*_TOKEN`` variable, every ``.env`` value) would
rewrite data that merely happens to contain the same text.

A ``.env`` file in the working directory is read, never applied wholesale: :func:`get_key` takes
one variable from it when the environment lacks it, and :func:`export_env` copies only the named
variables into ``os.environ`` (for LiteLLM, which reads keys from there). An ``HTTP_PROXY`` or any
other setting in ``.env`` therefore changes nothing.

:func:`redact` is the last line of defence for every string that leaves the process (exception
reasons, traces, manifests). It runs on every trace line, so it is cheap: the secret set is
recomputed only when one of the watched variables changes, and it returns at once when no secret
is set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

MASK = "***"
# Shorter values are not masked: a short "secret" would shred ordinary text, and no real API key is
# that short.
MIN_SECRET_LEN = 8

_dotenv_values: dict[str, str] = {}  # values read from .env files (not applied to os.environ)
_loaded_from: set[Path] = set()
_registered: set[str] = set()
_provider_names: set[str] = set()  # credential variables of the provider table (see .providers)
_names_cache: tuple[str, ...] | None = None
_state: tuple[tuple[str | None, ...], int, int] | None = None
_pattern: re.Pattern[str] | None = None


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
    """Read ``.env`` (default: in the working directory) once per process and remember its values
    for :func:`get_key` / :func:`export_env`. Nothing is written to ``os.environ``.

    Returns the values the file defines (empty when it was read before, or is missing/unreadable).
    """
    p = Path(path) if path is not None else Path.cwd() / ".env"
    try:
        p = p.resolve()
    except (OSError, RuntimeError):
        return {}
    if p in _loaded_from:
        return {}
    _loaded_from.add(p)
    try:
        values = parse_dotenv(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    for key, value in values.items():
        _dotenv_values.setdefault(key, value)
    return values


def get_key(env_var: str) -> str | None:
    """The value of ``env_var`` from the environment, else from ``./.env``; None if unset.

    Reading a variable registers it as a secret, so its value is masked in every output.
    """
    register_secret_env(env_var)
    load_dotenv()
    value = (os.environ.get(env_var) or _dotenv_values.get(env_var) or "").strip()
    return value or None


def export_env(names: Iterable[str]) -> list[str]:
    """Copy the named variables from ``./.env`` into ``os.environ`` when unset there (for libraries
    that read keys from the environment). Returns the names copied; all become secrets."""
    load_dotenv()
    done = []
    for name in names:
        register_secret_env(name)
        if not os.environ.get(name) and _dotenv_values.get(name):
            os.environ[name] = _dotenv_values[name]
            done.append(name)
    return done


def register_secret_env(*names: str) -> None:
    """Also treat the values of these environment variables as secrets."""
    global _names_cache
    new = set(names) - _registered
    if new:
        _registered.update(new)
        _names_cache = None


def register_provider_env(*names: str) -> None:
    """The provider table's credential variables (called once by :mod:`.providers`)."""
    global _names_cache
    _provider_names.update(names)
    _names_cache = None


def secret_env_names() -> tuple[str, ...]:
    """Every variable whose value :func:`redact` masks: provider keys (registered by
    :mod:`.providers` when the model layer loads) plus names registered by anyone else."""
    global _names_cache
    if _names_cache is None:
        _names_cache = tuple(sorted(_registered | _provider_names))
    return _names_cache


def secret_values() -> list[str]:
    """The values currently masked (longest first)."""
    names = secret_env_names()
    values = {os.environ.get(n) for n in names} | {_dotenv_values.get(n) for n in names}
    return sorted((v.strip() for v in values if v and len(v.strip()) >= MIN_SECRET_LEN), key=len, reverse=True)


_encoded: tuple[tuple[str, ...], tuple] = ((), ())


def _env_snapshot(names: tuple[str, ...]) -> tuple:
    """The raw values of ``names`` in the environment, cheaply: CPython keeps ``os.environ`` as
    an encoded mapping, and reading it directly skips a decode per variable (20x faster)."""
    global _encoded
    data, encodekey = getattr(os.environ, "_data", None), getattr(os.environ, "encodekey", None)
    if data is None or encodekey is None:
        return tuple(os.environ.get(n) for n in names)
    if _encoded[0] is not names:
        _encoded = (names, tuple(encodekey(n) for n in names))
    return tuple(map(data.get, _encoded[1]))


def _current_pattern() -> re.Pattern[str] | None:
    global _state, _pattern
    names = secret_env_names()
    state = (_env_snapshot(names), len(_dotenv_values), id(_dotenv_values))
    if state != _state:
        values = secret_values()
        # Longest first so a key that contains another key is masked whole.
        # IGNORECASE: a model that echoes a key upper-cased (or any other case) still leaks it.
        _pattern = re.compile("|".join(map(re.escape, values)), re.IGNORECASE) if values else None
        _state = state
    return _pattern


def redact(text: str) -> str:
    """Replace every known secret value in ``text`` with ``***``."""
    if not text:
        return text
    pattern = _current_pattern()
    if pattern is None:
        return text
    return pattern.sub(MASK, text)
