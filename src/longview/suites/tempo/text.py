"""Lexical helpers shared by the environment and the scorers (on longview.text)."""

from __future__ import annotations

from longview.text import content_words


def mentions(haystack: str, query: str) -> bool:
    """The text contains the query verbatim (case-insensitive) or shares a content word with it."""
    h = haystack.casefold()
    if query.casefold().strip() in h:
        return True
    return bool(content_words(query) & content_words(haystack))


def contains(text: str, key: str) -> bool:
    """Case- and whitespace-insensitive containment of a key string (ids, codes, amounts)."""
    return " ".join(key.casefold().split()) in " ".join(text.casefold().split())
