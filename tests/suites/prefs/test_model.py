import pytest

from longview.kernel.errors import DataError
from longview.suites.prefs.model import parse_taxonomy, taxonomy
from longview.suites.prefs.user import Said, audit, user_phrases


def test_inventory_shape():
    t = taxonomy()
    assert len(t.attributes) == 14 and len(t.dimensions) == 4
    assert sum(len(a.settings) for a in t.attributes) == 32
    assert {a.dimension for a in t.attributes} == {d.id for d in t.dimensions}
    assert all(sum(s.habit for s in a.settings) == 1 for a in t.attributes)
    assert {a.kind for a in t.attributes} == {"reply", "action"}


def test_user_phrases_never_use_benchmark_vocabulary():
    said = [Said(sid="x", kind="accumulation", text=p, trigger="mismatch") for p in user_phrases()]
    assert audit(said)["leaks"] == 0


def test_malformed_taxonomy_names_record_and_field():
    bad = "dimensions: [{id: d, name: D}]\nattributes:\n  - id: x\n    name: X\n    dimension: d\n    kind: reply\n    mechanism: nope\n    settings: []\n"
    with pytest.raises(DataError) as e:
        parse_taxonomy(bad, "bad.yaml")
    assert "bad.yaml" in str(e.value) and "attributes/0" in str(e.value)
