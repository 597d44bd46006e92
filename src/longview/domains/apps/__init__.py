"""AppWorld-style personal apps on the kernel (notes, todo, mail, phone, calendar, splitwise, spotify,
amazon, AppWorld file_system): typed state, READ/WRITE tools, AppWorld API shapes.

Tool names are ``<app>__<api>`` (``simple_note__create_note``), argument names and response
shapes follow the AppWorld apps that π-Bench tasks call (``login`` returns ``access_token``,
``create_note`` returns ``note_id``...), so checks written against those traces work unchanged.
Sandboxed workspace file tools (``list_dir``, ``read_file`` with CSV and PDF, ``write_file``,
``edit_file``) live in :mod:`longview.domains.apps.files`.
"""

from longview.domains.apps.state import APPS, AppsState
from longview.domains.apps.toolkit import AppsToolkit, app_of

__all__ = ["APPS", "AppsState", "AppsToolkit", "app_of"]
