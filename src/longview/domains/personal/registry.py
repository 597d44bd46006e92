"""Which toolkit class serves which domain, and :func:`make_env`: kept apart from the package's
other helpers so that modules of the package (discovery) can build environments without a cycle."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from longview.domains.personal.base import PersonalToolkit
from longview.domains.personal.commerce import CommerceToolkit
from longview.domains.personal.communication import CommunicationToolkit
from longview.domains.personal.reservation import ReservationToolkit
from longview.domains.personal.scheduling import SchedulingToolkit
from longview.domains.personal.travel import TravelToolkit
from longview.domains.personal.workspace import WorkspaceToolkit

_CLASSES: dict[str, type[PersonalToolkit]] = {
    cls.DOMAIN: cls
    for cls in (
        CommerceToolkit,
        ReservationToolkit,
        TravelToolkit,
        CommunicationToolkit,
        SchedulingToolkit,
        WorkspaceToolkit,
    )
}
DOMAINS: tuple[str, ...] = tuple(_CLASSES)
BASE_TOOLS: tuple[str, ...] = ("get_user_confirmation",)


def toolkit_class(domain: str) -> type[PersonalToolkit]:
    """The toolkit class of a domain; KeyError for an unknown domain."""
    try:
        return _CLASSES[domain]
    except KeyError:
        raise KeyError(f"unknown domain {domain!r} (known: {', '.join(DOMAINS)})") from None


def make_env(
    domain: str,
    references: Iterable[Any],
    persona: dict[str, Any] | None = None,
    tools: list[str] | None = None,
) -> PersonalToolkit:
    """A live toolkit for one session.

    ``references`` are ``Reference`` models or plain ``{id, type, attributes}`` dicts; ``persona``
    is the episode's ``structured_persona`` (its name fills identity fields); ``tools`` restricts
    the exposed tools (``get_user_confirmation`` is always added).
    """
    return toolkit_class(domain)(references, persona, tools)
