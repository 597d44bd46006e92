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
    # writes that take a catalogue id (a product, song or artist that exists only in AppWorld's database)
    "amazon__add_product_to_cart", "amazon__add_product_to_wish_list", "spotify__like_song", "spotify__review_song",
    "spotify__follow_artist",
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
    r"(current|today'?s|real-time|live) (market|price|prices|quote|rates?|yields?|data)|pubmed|clinicaltrials\.gov|"
    r"search (for )?(the |a few )?(literature|market|news)|literature search|(getting|become|becoming) popular|"
    r"news articles?|blog posts?|application links?|openreview link|internet|search for the)\b",
    re.IGNORECASE)

SHELL = re.compile(
    r"\b(run|execute)\b[^.\n]{0,40}\b(script|code|python|notebook|command|pipeline)\b|\bcommand line\b|"
    r"\bpip install\b|\bunzip\b", re.IGNORECASE)

# Inputs an agent cannot read with longview's file tools (text, CSV, PDF as text): it would need
# the paper's shell (archives) or an image model (pictures).
BINARY = ("png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp", "zip", "gz", "tgz", "tar", "7z", "rar",
          "xlsx", "xls", "docx", "doc", "pptx", "ppt", "parquet", "feather", "h5", "hdf5", "npy", "npz", "pkl",
          "pickle", "data", "mat", "sav", "dta", "mp3", "mp4", "wav", "mov")
IMAGES = ("png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp")
# Inputs a prompt may name that the release should then contain (text formats are readable, but a
# missing one is as fatal as a missing picture).
INPUTS = BINARY + ("pdf", "csv", "md", "txt", "json", "yaml", "yml", "tex")
FILE_NAME = re.compile(r"(?<![\w/.-])([\w][\w.-]*\.(?:" + "|".join(INPUTS) + r"))\b", re.IGNORECASE)
READ_WORDS = re.compile(r"\b(read|open|use|using|based on|uploaded|placed|review|analy[sz]e)\b", re.IGNORECASE)
CODE_ONLY = re.compile(r"\b(write|save|provide)\b[^.]{0,60}\b(script|code|pipeline|implementation)\b", re.IGNORECASE)
OUTPUT_WORDS = re.compile(r"\b(save|saved|export|output|generate|create|update|write|produce|name|named|called|as)\b[^.\n]{0,30}$",
                          re.IGNORECASE)


def tool_apps(names: Iterable[str]) -> set[str]:
    return {n.removeprefix(PREFIX).split("__", 1)[0] for n in names if "__" in n}


def text_apps(text: str) -> set[str]:
    low = text.lower()
    return {app for app, words in APP_WORDS.items() if any(w in low for w in words)}


def absent_inputs(text: str, available: set[str]) -> list[str]:
    """Input files the text names that the release does not hold: a name the request reads ('read
    X', 'uploaded X', 'X in the current task directory'); names it asks to write are outputs."""
    out = []
    for m in FILE_NAME.finditer(text):
        name = m.group(1)
        before = text[max(0, m.start() - 120):m.start()]
        if name.lower() in available or OUTPUT_WORDS.search(before) or not READ_WORDS.search(before):
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

    needs = [(v, why) for v, why in _needs(request, text, names, apps, assets, available, known_tools)]
    if needs:
        (v, first), rest = needs[0], needs[1:]
        also = "; also " + "; ".join(f"{r} ({rv})" for rv, r in rest) if rest else ""
        return Classification(task_id, v, first + also)
    kind = "apps" if apps else ("files" if assets else "none")
    return Classification(task_id, "runnable", "runs offline", kind=kind)


def _needs(request: str, text: str, names: list[str], apps: set[str], assets: list[Path], available: set[str],
           known_tools: set[str]) -> list[tuple[str, str]]:
    """Every reason the task cannot run offline, most fundamental first: (verdict, reason)."""
    out: list[tuple[str, str]] = []
    missing_apps = sorted(a for a in apps if a not in APPS)
    if missing_apps:
        out.append(("needs_app", f"longview has no {', '.join(missing_apps)} app"))
    lacking = sorted(n for n in names if n not in known_tools and n not in CATALOGUE_TOOLS)
    if lacking:
        out.append(("needs_app", f"longview lacks the API {', '.join(lacking)}"))
    db = sorted(n for n in names if n in CATALOGUE_TOOLS)
    if db:
        out.append(("needs_appworld_db", f"reads AppWorld's catalogue or other users via {', '.join(db)}"))
    m = EXISTING.search(request)
    if m and apps:
        out.append(("needs_appworld_db", f"starts from records the user already has ('{m.group(0)}')"))
    m = WEB.search(text)
    if m:
        out.append(("needs_live_web", f"needs the live web ('{m.group(0)[:40]}')"))
    code_only = bool(CODE_ONLY.search(request)) and not SHELL.search(request)
    gone = [] if code_only else absent_inputs(request, available)
    if gone:
        out.append(("needs_absent_asset", f"reads {', '.join(gone)}, which this checkout does not contain"))
    m = SHELL.search(text)
    if m:
        out.append(("needs_shell", f"asks to run code ('{m.group(0)[:40]}'; no shell offline)"))
    archives = [p.name for p in assets if p.suffix.lower() in (".zip", ".gz", ".tgz", ".tar", ".7z", ".rar")]
    if archives and not code_only:
        out.append(("needs_shell", f"its input {', '.join(archives)} must be unpacked (no shell offline)"))
    low = request.lower()
    pictures = [p.name for p in assets if p.suffix.lower().lstrip(".") in IMAGES and p.name.lower() in low]
    if pictures:
        out.append(("needs_image_input", f"asks to read {', '.join(pictures)} (no image input offline)"))
    return out
