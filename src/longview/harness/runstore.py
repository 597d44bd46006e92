"""Run directories: a manifest, one folder per cell with its session traces, a completion marker
per finished cell, and a journal of every model call.

Layout::

    RUN_DIR/manifest.json            what ran (versions, dataset hash, config + hash, commit, components)
    RUN_DIR/cells/<cell>/<session>.jsonl
    RUN_DIR/cells/<cell>/outcomes.json  each session's verdict, written when the run is scored
    RUN_DIR/cells/<cell>/result.json  completion marker: written last, atomically
    RUN_DIR/usage.jsonl              one line per model call, appended as it happens
    RUN_DIR/scorecard.json           written when the run finishes

Safety rules (issue 7):

* Every path the store hands out is inside its root: cell and session names go through
  :func:`~longview.kernel.ids.path_component` (injective, separator-free) and the resolved path is
  checked, so neither a hostile id nor a symlink planted in the folder leads elsewhere.
* ``--force`` removes only what longview writes (the names in :data:`OWNED`, temp files of those,
  and names recorded by :meth:`RunStore.write_json`); it refuses when the folder holds anything else.
* A damaged ``manifest.json`` is explained, never a traceback. A completion marker that does not
  parse (a truncated write, a hand edit) is not "done": the cell is redone and a note says why.
* Resume recovers usage from the journal, so calls of a killed invocation still count.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from pydantic import AliasChoices, BaseModel, Field, ValidationError, field_validator

from longview._version import __version__
from longview.kernel.errors import ConfigError, RunFolderError
from longview.kernel.ids import id_problem, path_component
from longview.kernel.models.secrets import redact

MARKER = "result.json"
OUTCOMES = "outcomes.json"
MANIFEST = "manifest.json"
CELLS = "cells"
JOURNAL = "usage.jsonl"
SCORECARD = "scorecard.json"
OWNED_LIST = ".longview-files"  # extra names written through write_json
OWNED = frozenset({MANIFEST, CELLS, JOURNAL, SCORECARD, OWNED_LIST})
MAX_CELL_KEY = 1000


def config_hash(config: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a run's configuration."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def git_commit() -> str | None:
    """Commit of the longview source tree, when it is a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


class DatasetInfo(BaseModel):
    """What was evaluated: the one definition for the manifest and every suite's scorecard."""

    name: str = Field(description="Dataset spec: builtin, a path, importer:PATH.")
    sha256: str = Field(description="Hash of the dataset content.")
    units: int = Field(
        validation_alias=AliasChoices("units", "personas"),  # "personas": manifests and atr scorecards written before
        description="Replication units (personas, users, scenarios): in a manifest those of the run, "
                    "in a scorecard those of the dataset.",
    )


class RunDataset(DatasetInfo):
    """The manifest's dataset: its identity, and the spec the run loaded, valid from any folder."""

    spec: str | None = Field(default=None, description="The --dataset spec as resolved for the run (paths made "
                             "absolute), which show and report load; None in runs made before it was recorded "
                             "(then `name`).")

    files_sha256: str | None = Field(default=None, description="sha256 of the bytes of the files the spec reads "
                                     "(harness.datafiles), checked before a run folder's dataset is loaded (rescore "
                                     "refuses files that differ unparsed); None for a named dataset (package data), "
                                     "one too big to hash, and runs made before it was recorded.")

    def load_spec(self) -> str:
        return self.spec or self.name


class Manifest(BaseModel):
    """What a run is: enough to reproduce it and to refuse resuming a different one."""

    suite: str = Field(description="Suite name.")
    package_version: str = Field(default=__version__, description="longview version.")
    git_commit: str | None = Field(default_factory=git_commit, description="Source commit, if known.")
    created: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"),
        description="UTC creation time of the run directory (wall clock; never used inside episodes).",
    )
    dataset: RunDataset = Field(description="Dataset identity.")
    config: dict[str, Any] = Field(description="Everything that determines results.")
    config_hash: str = Field(description="sha256 of `config`.")
    units: list[str] = Field(
        default_factory=list, description="The units (personas, users, scenarios) this run planned, in dataset "
        "order: a scorecard's 'missing' counts only these (empty in runs written before it was recorded).",
    )
    components: dict[str, str] = Field(default_factory=dict, description="Which implementation ran each role.")
    prompts: dict[str, str] = Field(default_factory=dict, description="Prompt file -> sha256.")
    usage: dict[str, Any] = Field(default_factory=dict, description="Token/cost accounting per role.")
    api_base: str | None = Field(default=None, description="Endpoint every model role used in the latest invocation "
                                 "(None: provider defaults); not part of the config hash.")
    endpoints: list[str | None] = Field(
        default_factory=list, description="Every endpoint (--api-base) the run's invocations used, in order, once a "
        "--resume changed it (empty while it never changed).",
    )
    harnesses: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="External agent label -> the name and version its processes reported "
        "(a cmd: agent's hello, an MCP client's clientInfo); learnt while the run goes, so not part of the config "
        "hash: cells whose harness reports otherwise abort.",
    )
    executor: dict[str, Any] = Field(
        default_factory=dict,
        description="What ran the cells of the latest invocation: name (local, ray), nodes, cpus, workers; "
        "never part of the config hash, so a local and a Ray run of one configuration resume each other.",
    )

    @field_validator("dataset", mode="before")
    @classmethod
    def _plain_dataset(cls, value: Any) -> Any:
        # A DatasetInfo (no spec) is accepted as it is: the spec is then its name.
        return value.model_dump() if isinstance(value, DatasetInfo) and not isinstance(value, RunDataset) else value


def atomic_write(path: Path, text: str, *, make_parents: bool = True, redact_secrets: bool = True) -> None:
    """Write via a unique temp file in the same folder and rename, so a crash never leaves half a
    file (nor clobbers a neighbour); secrets are masked unless the caller's text is made only of
    already-masked files (``redact_secrets=False``). OS failures become :class:`ConfigError`."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder; expected a file path to write")
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise ConfigError(f"{path}: cannot write here ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(redact(text) if redact_secrets else text)
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise ConfigError(f"{path}: cannot write here ({e.strerror or e})") from None
        raise


MAX_RUN_FILE = 1 << 30  # one file of a run folder (a long trace is tens of MB)
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"))


def read_run_file(path: Path, root: Path, record: str = "<file>", *, errors: str = "strict") -> str:
    """:func:`read_run_bytes` decoded as UTF-8 (a damaged byte is one error, or U+FFFD with
    ``errors="replace"``, as for traces)."""
    raw = read_run_bytes(path, root, record)
    try:
        return raw.decode("utf-8", errors=errors)
    except UnicodeDecodeError as e:
        raise RunFolderError(str(path), record, "<file>", f"UTF-8 text (invalid byte at offset {e.start}); "
                             "the file is damaged") from None


def read_run_bytes(path: Path, root: Path, record: str = "<file>") -> bytes:
    """The bytes of one file of the run folder ``root`` (manifest, scorecard, marker, trace...),
    read only if it is what it claims: a regular file (a FIFO would block the reader forever, a
    device never end), reached without leaving the run folder (a link out or a link loop is
    foreign), at most :data:`MAX_RUN_FILE` bytes. Anything else is one :class:`RunFolderError` naming the file, raised before it is opened for
    reading. Every reader of run folders (show, report, compare, profile, --resume) goes through it."""
    file = str(path)
    try:
        real = path.resolve(strict=True)
    except RuntimeError:  # Python 3.11 reports a link loop this way
        raise RunFolderError(file, record, "<file>", "a file, not a loop of symbolic links") from None
    except OSError as e:
        what = "a file, not a loop of symbolic links" if e.errno == errno.ELOOP else f"a readable file ({e.strerror or e})"
        raise RunFolderError(file, record, "<file>", what) from None
    base = root.resolve()
    if real != base and not real.is_relative_to(base):
        raise RunFolderError(file, record, "<file>", f"a file inside the run folder (it is a link to {real})")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)  # never blocks on a FIFO
    except OSError as e:
        raise RunFolderError(file, record, "<file>", f"a readable file ({e.strerror or e})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
            raise RunFolderError(file, record, "<file>", f"a regular file (it is {kind})")
        if st.st_size > MAX_RUN_FILE:
            raise RunFolderError(file, record, "<file>", f"a file of at most {MAX_RUN_FILE >> 20} MiB ({st.st_size >> 20} MiB)")
        return f.read(MAX_RUN_FILE + 1)


def safe_name(text: str) -> str:
    """Folder name of a cell or session: see :func:`~longview.kernel.ids.path_component`."""
    return path_component(text)


def _is_owned_temp(name: str, owned: set[str] | frozenset[str] = OWNED) -> bool:
    # atomic_write temp files: ".<owned name>.<random>.tmp"
    return name.startswith(".") and name.endswith(".tmp") and name[1:-4].rsplit(".", 1)[0] in owned


class RunStore:
    """One run directory.

    ``result_model`` (optional) is the pydantic model of cell results: a marker that does not
    validate against it is treated as damaged.
    """

    def __init__(self, root: Path | str, result_model: type[BaseModel] | None = None) -> None:
        self.root = Path(root)
        self.result_model = result_model
        self.previous_usage: dict[str, Any] = {}  # usage recorded by earlier invocations of a resumed run
        self.notes: dict[str, str] = {}  # what was found damaged (cell folder or file -> why)
        self._lock = threading.Lock()
        self._real_root_cache: Path | None = None
        self._cell_folders: dict[str, Path] = {}  # cell key -> its folder, checked to lie inside the run
        self._journal: TextIO | None = None  # the usage journal, open while a run appends to it

    # --- paths ------------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def journal_path(self) -> Path:
        return self.root / JOURNAL

    def _real_root(self) -> Path:
        # Resolved once: every session path is checked against it (resolving costs a syscall per
        # path component, and a run asks for thousands of session paths).
        real = self._real_root_cache
        if real is None:
            real = self.root.resolve()
            if self.root.is_dir():  # only once the run folder exists (it may still be made a link)
                self._real_root_cache = real
        return real

    def inside(self, path: Path) -> Path:
        """``path`` if it resolves (symlinks followed) to a location inside the run folder."""
        real, root = path.resolve(), self._real_root()
        if real != root and not real.is_relative_to(root):
            raise ConfigError(f"{self.root}: refusing to use {path}: it leads outside the run folder (to {real})")
        return path

    def _cell_path(self, cell: str) -> Path:
        problem = id_problem(cell, max_len=MAX_CELL_KEY, separators=True)
        if problem:
            raise ConfigError(f"{self.root}: cell key {cell!r:.80}: expected {problem}")
        return self.root / CELLS / path_component(cell)

    def cell_dir(self, cell: str) -> Path:
        """A cell's folder, checked to lie inside the run. Resolved once per cell once it exists
        as a real folder (resolving costs a syscall per path component, and a run asks for cell
        folders and session paths thousands of times); until then it may still be made a link."""
        folder = self._cell_folders.get(cell)
        if folder is None:
            folder = self.inside(self._cell_path(cell))
            if folder.is_dir() and not folder.is_symlink():
                self._cell_folders[cell] = folder
        return folder

    def session_path(self, cell: str, session_id: str) -> Path:
        """Where one session's trace of ``cell`` goes; the only way a suite should name a trace."""
        problem = id_problem(session_id)
        if problem:
            raise ConfigError(f"{self.root}: cell {cell}: session id {session_id!r:.80}: expected {problem}")
        # The file name is a plain name, so only a link planted at that very name is left to
        # refuse: the trace writer's open does (O_NOFOLLOW), without a system call here.
        return self.cell_dir(cell) / f"{path_component(session_id)}.jsonl"

    # --- opening ----------------------------------------------------------------------------

    def open(self, manifest: Manifest, *, resume: bool, force: bool) -> None:
        """Create the run, or reopen it for resume; refuse what would mix two configurations or
        destroy files longview did not write."""
        root = self.root
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root}: exists and is not a folder; choose a folder for the run")
        try:
            entries = sorted(p.name for p in root.iterdir()) if root.exists() else []
        except OSError as e:
            raise ConfigError(f"{root}: cannot read the folder ({e.strerror or e})") from None
        if self.manifest_path.exists() or self.manifest_path.is_symlink():
            try:
                old: Manifest | None = self._read_manifest()
            except RunFolderError as e:
                if not force:
                    raise RunFolderError(e.file, e.record, e.field,
                                         f"{e.expected}; the run cannot be resumed — pass --force to start it over") from None
                old = None
            if old is not None and resume and manifest.config_hash in (old.config_hash, _without_endpoint(old)):
                # A resume keeps user files beside the run, but not links, nor longview's own names
                # replaced by something else (a folder called scorecard.json, a file called cells).
                links = [n for n in self._foreign()
                         if n not in entries or n.rstrip("/") in OWNED or (root / n).is_symlink()]
                if links:
                    raise RunFolderError(str(root / links[0]), "<run folder>", links[0],
                                         "a file or folder longview wrote (found a symbolic link or foreign "
                                         "entry inside its cells); the run folder was tampered with")
                manifest.created = old.created
                if (old.api_base or None) != (manifest.api_base or None) or old.endpoints:
                    history = old.endpoints or [old.api_base]
                    manifest.endpoints = history + ([manifest.api_base] if history[-1] != manifest.api_base else [])
                self.previous_usage = self.recovered_usage(fallback=old.usage)
            elif old is not None and resume and not force:
                raise ConfigError(
                    f"{root}: cannot resume, the configuration changed (hash {old.config_hash[:12]} -> "
                    f"{manifest.config_hash[:12]}); pass --force to start this run directory over"
                )
            elif old is not None and not resume and not force:
                raise ConfigError(f"{root}: a run already exists here; pass --resume to continue it or --force to replace it")
            else:
                self._clear()
        elif entries:
            foreign = self._foreign()
            if foreign:
                raise ConfigError(
                    f"{root}: folder is not empty and is not a longview run ({_listing(foreign)}); "
                    "choose a new or empty folder"
                )
            if not force:
                raise RunFolderError(str(self.manifest_path), "<manifest>", "<file>",
                                     "present in a run folder (it holds run files but no manifest); "
                                     "pass --force to start it over")
            self._clear()
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"{root}: cannot create the run folder ({e.strerror or e})") from None
        self.write_manifest(manifest)

    def _foreign(self) -> list[str]:
        """Entries of the run folder longview did not write (symlinks are never longview's)."""
        out = []
        owned = OWNED | self._owned_extra()
        for p in sorted(self.root.iterdir()):
            if p.is_symlink() or not (p.name in owned or _is_owned_temp(p.name, owned)):
                out.append(p.name)
            elif p.name == CELLS:
                if not p.is_dir():
                    out.append(p.name)
                    continue
                for sub, dirs, files in os.walk(p):
                    for n in dirs + files:
                        q = Path(sub) / n
                        # links are never longview's, nor FIFOs, devices or sockets (a reader would hang)
                        if q.is_symlink() or not (q.is_dir() or q.is_file()):
                            out.append(str(q.relative_to(self.root)))
            elif p.name != CELLS and not p.is_file():
                out.append(p.name + "/")
        return out

    def _owned_extra(self) -> set[str]:
        try:
            names = (self.root / OWNED_LIST).read_text(encoding="utf-8").split()
        except (OSError, UnicodeDecodeError):
            return set()
        return {n for n in names if id_problem(n) is None and n.endswith(".json")}

    def _clear(self) -> None:
        """``--force``: remove what longview wrote, only if that is all the folder holds."""
        foreign = self._foreign()
        if foreign:
            raise ConfigError(
                f"{self.root}: --force replaces only what longview wrote, and this folder also holds "
                f"{_listing(foreign)}; move those away or choose another folder (nothing was removed)"
            )
        owned = OWNED | self._owned_extra()
        self._cell_folders.clear()  # the cell folders go: none may be taken as checked later
        for p in sorted(self.root.iterdir()):
            if p.name == CELLS and p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif p.name in owned or _is_owned_temp(p.name, owned):
                p.unlink()

    # --- manifest ---------------------------------------------------------------------------

    def write_manifest(self, manifest: Manifest) -> None:
        atomic_write(self.inside(self.manifest_path), manifest.model_dump_json(indent=2))

    def _read_manifest(self) -> Manifest:
        path, file = self.manifest_path, str(self.manifest_path)
        text = read_run_file(path, self.root, "<manifest>")
        try:
            return Manifest.model_validate_json(text)
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "<root>"
            what = "complete JSON (the file is truncated or damaged)" if err["type"] == "json_invalid" else err["msg"]
            raise RunFolderError(file, "<manifest>", field, what) from None
        except RecursionError:
            raise RunFolderError(file, "<manifest>", "<root>", "JSON of sane depth (the file is damaged)") from None

    def manifest(self) -> Manifest:
        if not self.root.is_dir():
            what = "not a folder" if self.root.exists() else "no such folder"
            raise ConfigError(f"{self.root}: not a run directory ({what})")
        if not self.manifest_path.exists():
            raise ConfigError(f"{self.root}: not a run directory (no manifest.json)")
        return self._read_manifest()

    # --- cells ------------------------------------------------------------------------------

    def _marker_problem(self, marker: Path) -> str | None:
        """Why ``marker`` does not prove its cell finished, or None when it does."""
        if marker.is_dir() and not marker.is_symlink():
            return "result.json is a folder"
        try:
            text = read_run_file(marker, self.root, "<result>")  # a FIFO, device or link out is refused
        except RunFolderError as e:
            if "UTF-8" not in e.expected and "readable file" not in e.expected:
                raise
            return f"result.json is unreadable ({e.expected})"
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return "result.json is truncated or not valid JSON"
        if not isinstance(data, dict) or not data:
            return "result.json does not hold a cell result"
        if data.get("status", "complete") not in ("complete", "aborted"):  # the harness writes only these
            return f"result.json field 'status': expected 'complete' or 'aborted' (got {str(data['status'])[:40]!r})"
        if self.result_model is not None:
            try:
                self.result_model.model_validate(data)
            except ValidationError as e:
                err = e.errors()[0]
                return f"result.json field '{'.'.join(map(str, err['loc']))}': {err['msg']}"
        return None

    def is_done(self, cell: str) -> bool:
        """True when the cell has a valid completion marker. A damaged marker is not done: the
        cell will be redone, and :attr:`notes` says why."""
        if not (self._cell_path(cell) / MARKER).exists():  # most cells of a new run: nothing to resolve
            return False
        d = self.cell_dir(cell)  # the folder must lie inside the run (the same path, checked)
        marker = d / MARKER
        problem = self._marker_problem(marker)
        if problem:
            self.notes[d.name] = f"{problem}; the cell counts as unfinished (a --resume runs it again)"
            return False
        return True

    def start_cell(self, cell: str) -> Path:
        """Fresh folder for a cell that has no marker (a half-written one is discarded)."""
        d = self.cell_dir(cell)
        if d.is_symlink():
            raise ConfigError(f"{d}: is a symbolic link; longview writes only real folders of its own")
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        return d

    def finish_cell(self, cell: str, result: BaseModel) -> None:
        # A rename replaces a link planted at the marker's name instead of following it.
        atomic_write(self.cell_dir(cell) / MARKER, result.model_dump_json(indent=1))

    def results(self) -> list[str]:
        """JSON text of every finished cell's result, in cell-folder order. Damaged markers are
        skipped and noted in :attr:`notes` (the cell counts as unfinished)."""
        return [text for _, text in self.finished()]

    def finished(self) -> list[tuple[str, str]]:
        """(cell folder name, result JSON text) of every finished cell, as :meth:`results`."""
        out: list[tuple[str, str]] = []
        cells = self.root / CELLS
        if not cells.is_dir():
            return out
        # Every folder's marker, a link too (a glob skips a link loop, which must be refused, not missed).
        for marker in sorted(d / MARKER for d in cells.iterdir() if (d / MARKER).exists() or (d / MARKER).is_symlink()):
            if marker.parent.is_symlink():
                self.notes[marker.parent.name] = "cell folder is a symbolic link; ignored"
                continue
            problem = self._marker_problem(marker)
            if problem:
                self.notes[marker.parent.name] = f"{problem}; not scored"
                continue
            out.append((marker.parent.name, read_run_file(marker, self.root, "<result>")))
        return out

    def write_cell_file(self, folder: str, name: str, text: str) -> None:
        """Write ``cells/<folder>/<name>`` of a finished cell (``folder`` as :meth:`finished` names
        it), unless it already holds exactly ``text``."""
        if id_problem(folder) or id_problem(name) or name == MARKER:
            raise ConfigError(f"{self.root}: cannot write cell file {folder!r:.80}/{name!r:.40}")
        path = self.inside(self.root / CELLS / folder / name)
        try:
            if path.is_file() and path.read_text(encoding="utf-8") == text:
                return
        except (OSError, UnicodeDecodeError):
            pass
        atomic_write(path, text, make_parents=False)

    # --- other files ------------------------------------------------------------------------

    def write_json(self, name: str, data: Any) -> Path:
        """Write ``RUN_DIR/<name>`` (a plain ``*.json`` file name); ``--force`` may replace it later."""
        if id_problem(name) or not name.endswith(".json") or name in (MANIFEST,):
            raise ConfigError(f"{self.root}: cannot write {name!r}: expected a plain *.json file name")
        if name not in OWNED and name not in self._owned_extra():
            with self._lock:
                with (self.root / OWNED_LIST).open("a", encoding="utf-8") as f:
                    f.write(name + "\n")
        path = self.inside(self.root / name)
        atomic_write(path, json.dumps(data, indent=2, sort_keys=False))
        return path

    # --- usage journal ----------------------------------------------------------------------

    def journal_usage(self, entry: dict[str, Any]) -> None:
        """Append one model call's usage (see ``UsageLedger.journal``); flushed line by line so a
        killed invocation loses at most the call in flight."""
        line = json.dumps(entry, sort_keys=True)
        with self._lock:
            if self._journal is None:  # opened (and checked to lie inside the run) once per invocation
                self._journal = self.inside(self.journal_path).open("a", encoding="utf-8")
            self._journal.write(line + "\n")
            self._journal.flush()  # to the OS: a kill -9 of this process loses nothing written

    def close_journal(self) -> None:
        with self._lock:
            if self._journal is not None:
                self._journal.close()
                self._journal = None

    def journal_size(self) -> int:
        """Bytes in the usage journal now: where this invocation's entries will start."""
        try:
            return self.journal_path.stat().st_size
        except FileNotFoundError:
            return 0

    def recovered_usage(self, fallback: dict[str, Any] | None = None, since: int = 0) -> dict[str, Any]:
        """Usage summed from the journal, from byte ``since`` on (a manifest's ``usage`` may miss a
        killed invocation's calls); ``fallback`` when there is no journal."""
        from longview.kernel.models.usage import summary_from_entries

        if not self.journal_path.exists():
            return dict(fallback or {})
        entries, bad = [], 0
        raw = read_run_bytes(self.journal_path, self.root, "<usage journal>")
        lines = raw[since:].decode("utf-8", errors="replace").splitlines()
        for line in lines:
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                bad += 1  # the line in flight when an invocation was killed (or damage)
                continue
            if isinstance(entry, dict):
                entries.append(entry)
            else:
                bad += 1
        if bad:
            self.notes[JOURNAL] = f"{bad} incomplete line(s) skipped (an invocation was killed mid-write)"
        return summary_from_entries(entries)


def _without_endpoint(old: Manifest) -> str | None:
    """The hash ``old``'s config has without the endpoint that runs written before it left the
    identity kept in it (so they still resume), or None when it has none."""
    if "api_base" not in old.config:
        return None
    return config_hash({k: v for k, v in old.config.items() if k != "api_base"})


def _listing(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")
