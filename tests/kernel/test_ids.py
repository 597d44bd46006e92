"""Ids that become paths are checked, and mapped to folder names injectively; dataset JSON that is
too deep or holds lone surrogates is a DataError, never a traceback."""

from __future__ import annotations

import itertools
import json

import pytest

from longview.kernel.errors import DataError
from longview.kernel.ids import MAX_DEPTH, MAX_ID_LEN, check_id, id_problem, parse_json, path_component, read_json

BAD_IDS = [
    "", ".", "..", "../x", "a/b", "/etc/passwd", "a\\b", "C:\\x", "a\x00b", "a\nb", "a\x1b[2Jb", "\ud800",
    "x\u202ey", " lead", "trail ", "a" * (MAX_ID_LEN + 1), 7, None, ["a"],
    # outside the id alphabet: markup and shell characters
    "<img src=x onerror=alert(1)>", 'a"b', "a'b", "a&b", "a=b", "a`b", "a;b", "a$b", "a{b}",
]
GOOD_IDS = ["p01", "aaliyah_brooks_s00", "Alice", "é-ü", "a b", "a..b", "x" * MAX_ID_LEN, "食べ物",
            "business-launch:operator", "p01+3f2a", "a@b.c", "t#1 (v2), ~x"]


@pytest.mark.parametrize("value", BAD_IDS)
def test_bad_ids_are_data_errors_naming_file_record_field(value):
    with pytest.raises(DataError) as e:
        check_id(value, "ep.json", "ep1/learning_sessions[0]", "session_id")
    msg = str(e.value)
    assert msg.startswith("ep.json: record ep1/learning_sessions[0]: field 'session_id':")
    assert "\x00" not in msg and "\x1b" not in msg and "\n" not in msg
    msg.encode("utf-8")  # printable: no lone surrogate survives into the message


@pytest.mark.parametrize("value", GOOD_IDS)
def test_good_ids_pass(value):
    assert check_id(value, "f", "r", "x") == value


def test_path_component_is_safe_and_injective():
    texts = GOOD_IDS + ["P01", "p 01", "p_01", "p01+abc", "CON", "con", ".hidden", "-", "a/b", "a_b",
                        "ref:passive__atr__p01", "openai/gpt-4o__atr__p01__t1", "x" * 500, "x" * 501]
    names = [path_component(t) for t in texts]
    for n in names:
        assert "/" not in n and "\\" not in n and n not in (".", "..") and not n.startswith(".")
        assert len(n.encode()) <= 120, n
        assert id_problem(n) is None
    assert len(set(names)) == len(texts)
    assert len({n.lower() for n in names}) == len(texts)  # distinct on case-insensitive disks too
    assert path_component("aaliyah_brooks_s00") == "aaliyah_brooks_s00"  # plain ids stay readable


def test_path_component_injective_over_near_collisions():
    alphabet = ["a", "A", "_", " ", ".", "+", "/", "é"]
    texts = ["".join(p) for n in (1, 2, 3) for p in itertools.product(alphabet, repeat=n)]
    names = {path_component(t).lower() for t in texts}
    assert len(names) == len(texts)


def test_deep_json_is_a_data_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match="nested at most"):
        read_json(deep)
    ok = json.dumps({"a": [[[1]]]})
    assert parse_json(ok, "f") == {"a": [[[1]]]}
    just_too_deep = "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2)
    with pytest.raises(DataError, match="nested at most"):
        parse_json(just_too_deep, "f")


@pytest.mark.parametrize(
    "text,where",
    [
        ('{"a": "\\ud800"}', "'a'"),
        ('{"a": [1, {"b": "x\\udfff"}]}', "'a.1.b'"),
        ('{"\\ud800": 1}', "field '"),
    ],
)
def test_lone_surrogates_are_data_errors_naming_the_field(text, where):
    with pytest.raises(DataError, match="lone surrogate") as e:
        parse_json(text, "f.json", "ep")
    assert where in str(e.value)


@pytest.mark.parametrize(
    "raw,expected",
    [
        (b"\xff\xfe{}", "UTF-8"),
        (b"{", "valid JSON"),
        (b'{"n": ' + b"9" * 5000 + b"}", "valid JSON"),
    ],
)
def test_undecodable_or_invalid_json(tmp_path, raw, expected):
    p = tmp_path / "x.json"
    p.write_bytes(raw)
    with pytest.raises(DataError, match=expected):
        read_json(p)


def test_unreadable_file(tmp_path):
    with pytest.raises(DataError, match="readable"):
        read_json(tmp_path / "missing.json")
    with pytest.raises(DataError, match="readable"):
        read_json(tmp_path)  # a folder


def test_write_models_names_files_safely_and_reads_back_without_defaults(tmp_path):
    from pydantic import BaseModel

    from longview.kernel.ids import write_models

    class Unit(BaseModel):
        id: str
        note: str = "default"

    paths = write_models(tmp_path / "d", [("u1", Unit(id="u1")), ("../Evil", Unit(id="e", note="x"))])
    assert [p.parent for p in paths] == [tmp_path / "d"] * 2  # a hostile name stays in the folder
    assert paths[0].name == "u1.json" and "+" in paths[1].name
    assert read_json(paths[0]) == {"id": "u1"}  # defaults left out
    assert read_json(paths[1]) == {"id": "e", "note": "x"}


def test_the_alphabet_is_named_in_the_message():
    with pytest.raises(DataError, match="letters, digits, spaces and") as e:
        check_id("<b>", "ep.json", "ep1", "persona_id")
    assert "'<'" in str(e.value) and "'>'" in str(e.value)
    assert id_problem("ref:x__atr__openai/gpt-5.4 <b>", separators=True) is None  # composite keys: the user's flags
