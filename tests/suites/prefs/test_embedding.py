"""The shipped dense embedding (the ``embed`` extra): all-MiniLM-L6-v2 offline, shared by rag and
mem0 as ``-S embedding=minilm``. The tests that need it skip only when the extra is absent (CI does
not install it: it pulls PyTorch); without it, naming it is one clear error."""

import pytest

from longview.kernel.errors import ConfigError
from longview.memory.embeddings import available
from longview.memory.rag import RagMemory, load_embedding

needs_embed = pytest.mark.skipif(not available(), reason="the embed extra is not installed "
                                 "(pip install -e '.[embed]'; CI does not install it: PyTorch)")

PARAPHRASE = ["Keep replies short.", "Please be brief when answering.", "The boiler inspection is Friday morning."]


def cos(x, y):
    return sum(a * b for a, b in zip(x, y, strict=True))


@needs_embed
def test_minilm_is_a_real_offline_embedding(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    e = load_embedding("minilm")
    a, b, c = e.embed_documents(PARAPHRASE)
    assert len(a) == 384 and abs(cos(a, a) - 1) < 1e-4
    assert cos(a, b) > cos(a, c) + 0.2  # a paraphrase sharing no content word is near; an unrelated line is not
    assert e.embed_query(PARAPHRASE[0]) == pytest.approx(a, abs=1e-5)


@needs_embed
def test_rag_with_minilm_finds_what_bm25_cannot():
    from longview.kernel.agent import Message

    msgs = [Message(role="user", content=t) for t in PARAPHRASE[1:]]
    dense, bm25 = RagMemory(embedding="minilm", top_k=1), RagMemory(top_k=1)
    for m in (dense, bm25):
        m.observe("s1", msgs, when="2026-01-05 work")
    assert dense.retrieval == "dense embedding minilm"
    assert "brief" in dense.search(PARAPHRASE[0])[0]
    assert bm25.search(PARAPHRASE[0]) == []  # no shared word: BM25 scores nothing


@pytest.mark.skipif(available(), reason="the embed extra is installed")
def test_minilm_without_the_extra_is_one_clear_error():
    with pytest.raises(ConfigError, match=r"longview\[embed\]"):
        load_embedding("minilm")
