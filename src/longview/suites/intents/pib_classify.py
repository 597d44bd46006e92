"""Which released π-Bench tasks run offline, and why the others do not.

A task is **runnable** when everything it declares and grades is local: its files are in the
release, every app it uses is one of longview's, every API it declares is implemented, none of
them has to answer from AppWorld's populated database, and nothing it asks for needs the live
web, a shell or an image model. The rules below are checked in order; the first that applies is
the verdict, with a reason naming what the task needs. They are heuristics over the task's own
text and declarations — ``longview intents inspect`` prints every verdict so they can be checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from longview.domains.apps.state import APPS
from longview.suites.intents.dataset import Classification

PREFIX = "mcp_appworld_"

# Words that put an app in a task even when it declares none of its tools.
APP_WORDS = {"simple_note": ("simple note", "simplenote"), "todoist": ("todoist",), "gmail": ("gmail",),
             "phone": ("text message", "phone number", "sms"), "splitwise": ("splitwise",), "spotify": ("spotify",),
             "amazon": ("amazon",), "venmo": ("venmo",), "file_system": ("file_system",)}

# AppWorld APIs that answer from AppWorld's own populated database — its product and song
# catalogues, sellers, reviews, other users — which starts empty offline. Reads of the user's own
# records (threads, drafts, notes, texts, groups) are not here: they answer from what the session
# itself created.
CATALOGUE_TOOLS = frozenset({
    "amazon__search_products", "amazon__show_product", "amazon__show_product_reviews", "amazon__search_sellers",
    "amazon__show_seller", "amazon__show_recommended_products", "amazon__search_product_types",
    "amazon__show_product_questions", "amazon__show_addresses", "amazon__show_payment_cards",
    "amazon__show_last_product_purchase", "amazon__show_product_purchases",
    "spotify__search_songs", "spotify__show_song", "spotify__search_artists", "spotify__show_artist",
    "spotify__show_song_reviews", "spotify__search_albums", "spotify__show_album", "spotify__search_playlists",
    "spotify__show_playlist", "gmail__search_users", "splitwise__search_users",
})

# Text that says the task starts from records the user already has in an app (an inbox, earlier
# messages, a playlist, past orders): AppWorld's seeded accounts hold them, longview's do not.
EXISTING = re.compile(
    r"\b(my inbox|in my inbox|inbox|unread (e-?mails?|messages|threads)|e-?mails? (i|we) (received|got)|"
    r"(received|sent me) (an? |the )?(e-?mail|message|text)|my (liked songs|playlists?|library|wish ?list|orders?|"
    r"purchase history|contacts list)|(last|previous|past) (order|purchase)s?|existing (notes?|tasks?|projects?|groups?))\b",
    re.IGNORECASE)

WEB = re.compile(
    r"https?://|www\.|\b(search (the )?(web|online|internet)|(conduct|do|run) (an? )?(internet|web|online) search|"
    r"internet search|web search|online search|look (it |them |this )?up online|google|arxiv|github (link|repo)|"
    r"latest (news|release|version|daily|data|figures?|report|rates?|yields?|updates?)|"
    r"(just|newly|recently) (been )?released|new release|news (articles?|coverage)|websites?|web ?pages?|"
    r"(current|today'?s|real-time|live) (market|price|prices|quote|rates?|yields?|data)|pubmed|clinicaltrials\.gov)\b",
    re.IGNORECASE)

SHELL = re.compile(
    r"\b(run|execute)\b[^.\n]{0,40}\b(script|code|python|notebook|command|pipeline)\b|\bterminal\b|\bshell\b|"
    r"\bpip install\b|\bunzip\b", re.IGNORECASE)

# Inputs an agent cannot read with longview's file tools (text, CSV, PDF as text): it would need
# the paper's shell (archives) or an image model (pictures).
BINARY = ("png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp", "zip", "gz", "tgz", "tar", "7z", "rar",
          "xlsx", "xls", "docx", "doc", "pptx", "ppt", "parquet", "feather", "h5", "hdf5", "npy", "npz", "pkl",
          "pickle", "data", "mat", "sav", "dta", "mp3", "mp4", "wav", "mov")
FILE_NAME = re.compile(r"(?<![\w/.-])([\w][\w.-]*\.(?:" + "|".join(BINARY) + r"))\b", re.IGNORECASE)
OUTPUT_WORDS = re.compile(r"\b(save|saved|export|output|generate|create|write|produce|named|called|as)\b[^.\n]{0,30}$",
                          re.IGNORECASE)


def tool_apps(names: Iterable[str]) -> set[str]:
    return {n.removeprefix(PREFIX).split("__", 1)[0] for n in names if "__" in n}


def text_apps(text: str) -> set[str]:
    low = text.lower()
    return {app for app, words in APP_WORDS.items() if any(w in low for w in words)}


def absent_inputs(text: str, available: set[str]) -> list[str]:
    """Binary input files the text names that the release does not hold (output names excluded)."""
    out = []
    for m in FILE_NAME.finditer(text):
        name = m.group(1)
        if name.lower() in available or OUTPUT_WORDS.search(text[max(0, m.start() - 40):m.start()]):
            continue
        if name not in out:
            out.append(name)
    return out


def classify(task_id: str, request: str, intents: list[str], tools: list[str], assets: list[Path],
             available: set[str], known_tools: set[str]) -> Classification:
    """The verdict for one task (see the module docstring). ``tools`` are the declared names,
    ``assets`` the task folder's files, ``available`` the lower-cased names of every file this task
    can see (its own and earlier tasks' assets), ``known_tools`` longview's implemented APIs."""
    names = [n.removeprefix(PREFIX) for n in tools]
    text = request + "\n" + "\n".join(intents)
    apps = tool_apps(names) | text_apps(request)

    def verdict(v: str, reason: str) -> Classification:
        return Classification(task_id, v, reason)

    missing_apps = sorted(a for a in apps if a not in APPS)
    if missing_apps:
        return verdict("needs_app", f"longview has no {', '.join(missing_apps)} app")
    lacking = sorted(n for n in names if n not in known_tools and n not in CATALOGUE_TOOLS)
    if lacking:
        return verdict("needs_app", f"longview lacks the API {', '.join(lacking)}")
    db = sorted(n for n in names if n in CATALOGUE_TOOLS)
    if db:
        return verdict("needs_appworld_db", f"reads AppWorld's catalogue or other users via {', '.join(db)}")
    m = EXISTING.search(request)
    if m and apps:
        return verdict("needs_appworld_db", f"starts from records the user already has ('{m.group(0)}')")
    m = WEB.search(text)
    if m:
        return verdict("needs_live_web", f"needs the live web ('{m.group(0)[:40]}')")
    gone = absent_inputs(text, available)
    if gone:
        return verdict("needs_absent_asset", f"names {', '.join(gone)}, which the release does not contain")
    unreadable = sorted(p.name for p in assets if p.suffix.lower().lstrip(".") in BINARY)
    archives = [n for n in unreadable if n.lower().endswith((".zip", ".gz", ".tgz", ".tar", ".7z", ".rar"))]
    if archives:
        return verdict("needs_shell", f"its input {', '.join(archives)} must be unpacked (no shell offline)")
    m = SHELL.search(text)
    if m:
        return verdict("needs_shell", f"asks to run code ('{m.group(0)[:40]}'; no shell offline)")
    kind = "apps" if apps else ("files" if assets else "none")
    c = Classification(task_id, "runnable", "runs offline", kind=kind)
    if unreadable:
        c.reason = f"runs offline; {', '.join(unreadable[:3])} cannot be viewed (no image model)"
    return c
