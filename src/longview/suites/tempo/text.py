"""Lexical helpers shared by the environment and the scorers (on longview.text)."""

from __future__ import annotations

from longview.text import content_words, overlap


def mentions(haystack: str, query: str) -> bool:
    """The text contains the query verbatim (case-insensitive) or shares a content word with it."""
    h = haystack.casefold()
    if query.casefold().strip() in h:
        return True
    return bool(content_words(query) & content_words(haystack))


def contains(text: str, key: str) -> bool:
    """Case- and whitespace-insensitive containment of a key string (ids, codes, amounts)."""
    return " ".join(key.casefold().split()) in " ".join(text.casefold().split())


def about(text: str, key: str) -> bool:
    """A text is about a key when it contains it, or — for a key phrase of three or more content
    words — when it has at least three quarters of them (an agent may paraphrase a task's title)."""
    if contains(text, key):
        return True
    words = content_words(key)
    return len(words) >= 3 and overlap(content_words(text), words) >= 0.75
