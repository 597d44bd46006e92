"""The typed state of every app: accounts, sessions (access tokens) and each app's records."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from longview.kernel.state import WorldState

APPS = ("simple_note", "todoist", "gmail", "phone", "calendar", "splitwise", "spotify", "amazon", "file_system")


class Account(BaseModel):
    """A user account of one app."""

    email: str = Field(description="Login name (email, or phone number for the phone app).")
    password: str = Field(description="Password.")
    first_name: str = Field(default="", description="First name.")
    last_name: str = Field(default="", description="Last name.")


class Note(BaseModel):
    note_id: int = Field(description="Note id.")
    owner: str = Field(description="Owner's login.")
    title: str = Field(description="Title.")
    content: str = Field(default="", description="Body text.")
    tags: list[str] = Field(default_factory=list, description="Tags.")
    pinned: bool = Field(default=False, description="Pinned status.")
    created_at: str = Field(default="", description="Creation time (simulated).")
    updated_at: str = Field(default="", description="Last update (simulated).")


class TodoProject(BaseModel):
    project_id: int
    owner: str
    name: str
    color: str = "grey"
    is_favorite: bool = False


class TodoSection(BaseModel):
    section_id: int
    project_id: int
    name: str


class TodoTask(BaseModel):
    task_id: int
    owner: str
    project_id: int | None = None
    section_id: int | None = None
    parent_task_id: int | None = None
    title: str
    description: str = ""
    due_date: str | None = None
    priority: int = 1
    labels: list[str] = Field(default_factory=list)
    label_ids: list[int] = Field(default_factory=list)
    assignee_email: str | None = None
    completed: bool = False
    comments: list[dict[str, Any]] = Field(default_factory=list)


class TodoLabel(BaseModel):
    label_id: int
    owner: str
    name: str


class Email(BaseModel):
    email_id: int
    thread_id: int
    sender: str
    recipients: list[str]
    cc: list[str] = Field(default_factory=list)
    subject: str
    body: str
    draft: bool = False
    sent_at: str = ""
    labels: list[str] = Field(default_factory=list)
    read: bool = False


class Contact(BaseModel):
    contact_id: int
    owner: str
    first_name: str
    last_name: str = ""
    phone_number: str
    email: str = ""
    relationships: list[str] = Field(default_factory=list)


class TextMessage(BaseModel):
    text_message_id: int
    sender: str
    receiver: str
    message: str
    sent_at: str = ""


class Alarm(BaseModel):
    alarm_id: int
    owner: str
    time: str
    label: str = ""
    repeat_days: list[str] = Field(default_factory=list)
    enabled: bool = True


class Event(BaseModel):
    event_id: int
    owner: str
    title: str
    start: str
    end: str
    location: str = ""
    description: str = ""
    attendees: list[str] = Field(default_factory=list)


class SplitGroup(BaseModel):
    group_id: int
    name: str
    owner: str
    member_emails: list[str]


class Expense(BaseModel):
    expense_id: int
    group_id: int | None
    description: str
    paid_amount: float
    payer_email: str
    debtor_emails: list[str]
    debt_amounts: list[float]


class Song(BaseModel):
    song_id: int
    title: str
    artist: str
    genre: str = ""
    duration: int = 200
    rating: float = 4.0


class Product(BaseModel):
    product_id: int
    name: str
    product_type: str = ""
    price: float
    rating: float = 4.0
    stock: int = 10
    description: str = ""


class Order(BaseModel):
    order_id: int
    owner: str
    items: list[dict[str, Any]]
    total: float
    address: str = ""


class AppsState(WorldState):
    """Everything the apps know; tools read and change only this."""

    accounts: dict[str, list[Account]] = Field(default_factory=dict, description="App -> its accounts.")
    open_login: bool = Field(
        default=False,
        description="Accept any credentials for an app without seeded accounts (imported tasks whose "
        "accounts live in AppWorld's own database).",
    )
    tokens: dict[str, list[str]] = Field(default_factory=dict, description="access_token -> [app, login].")
    counter: int = Field(default=0, description="Last id handed out.")
    notes: list[Note] = Field(default_factory=list)
    projects: list[TodoProject] = Field(default_factory=list)
    sections: list[TodoSection] = Field(default_factory=list)
    tasks: list[TodoTask] = Field(default_factory=list)
    labels: list[TodoLabel] = Field(default_factory=list, description="Todoist labels.")
    emails: list[Email] = Field(default_factory=list)
    contacts: list[Contact] = Field(default_factory=list)
    texts: list[TextMessage] = Field(default_factory=list)
    alarms: list[Alarm] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    groups: list[SplitGroup] = Field(default_factory=list)
    expenses: list[Expense] = Field(default_factory=list)
    songs: list[Song] = Field(default_factory=list)
    liked_songs: dict[str, list[int]] = Field(default_factory=dict)
    products: list[Product] = Field(default_factory=list)
    cart: dict[str, dict[str, int]] = Field(default_factory=dict, description="login -> product_id -> qty.")
    orders: list[Order] = Field(default_factory=list)
    wish_lists: dict[str, list[int]] = Field(default_factory=dict, description="Amazon: login -> product ids.")
    song_reviews: list[dict[str, Any]] = Field(default_factory=list, description="Spotify song reviews.")
    followed_artists: dict[str, list[int]] = Field(default_factory=dict, description="Spotify: login -> artist ids.")
    vfs_files: dict[str, dict[str, Any]] = Field(default_factory=dict, description="AppWorld file_system: "
                                                 "login -> path -> {file_id, content, created_at, updated_at}.")
    vfs_dirs: dict[str, list[str]] = Field(default_factory=dict, description="AppWorld file_system: login -> "
                                           "directory paths (ending in /).")
    now: str = Field(default="2026-03-02T09:00:00", description="Simulated current time.")

    def next_id(self) -> int:
        self.counter += 1
        return self.counter

    def add_account(self, app: str, email: str, password: str, first_name: str = "", last_name: str = "") -> None:
        self.accounts.setdefault(app, []).append(
            Account(email=email, password=password, first_name=first_name, last_name=last_name))
