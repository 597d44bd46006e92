"""The AppWorld-style apps and the sandboxed workspace file tools."""

from __future__ import annotations

import os

from longview.domains.apps import AppsState, AppsToolkit
from longview.domains.apps.files import snapshot_files
from longview.domains.apps.pdf import extract_text, write_pdf


def kit(tmp_path, **kw):
    s = AppsState(**kw)
    s.add_account("simple_note", "me@x.org", "pw")
    s.add_account("todoist", "me@x.org", "pw")
    return s, AppsToolkit(s, tmp_path / "ws")


def test_login_token_and_appworld_shapes(tmp_path):
    s, t = kit(tmp_path)
    assert t.call("simple_note__login", {"username": "me@x.org", "password": "bad"}).ok is False
    tok = t.call("simple_note__login", {"username": "me@x.org", "password": "pw"}).output["access_token"]
    out = t.call("simple_note__create_note", {"access_token": tok, "title": "T", "content": "a"}).output
    assert set(out) == {"message", "note_id"}
    nid = out["note_id"]
    t.call("simple_note__add_content_to_note", {"access_token": tok, "note_id": nid, "added_content": "b",
                                                "append_or_prepend": "append"})
    shown = t.call("simple_note__show_note", {"access_token": tok, "note_id": nid}).output
    assert shown["content"] == "a\nb" and shown["title"] == "T"
    # a token of another app is refused
    bad = t.call("todoist__create_project", {"access_token": tok, "name": "P"})
    assert not bad.ok and "todoist__login" in bad.error


def test_gmail_sends_and_drafts_with_appworld_names(tmp_path):
    """AppWorld's names, which the π-Bench rule scripts read: a send returns sent_email_thread_id and
    sent_email_id (law_trainee_task_012's script labels the thread it names), a draft's recipients
    are recipient_email_addresses (Financier_task_005's, law_trainee_task_018's)."""
    s, t = kit(tmp_path)
    s.add_account("gmail", "me@x.org", "pw")
    tok = t.call("gmail__login", {"username": "me@x.org", "password": "pw"}).output["access_token"]
    sent = t.call("gmail__send_email", {"access_token": tok, "email_addresses": ["a@x.org"], "subject": "S",
                                        "body": "B"}).output
    assert set(sent) == {"message", "sent_email_thread_id", "sent_email_id"}
    assert t.call("gmail__label_thread", {"access_token": tok, "email_thread_id": sent["sent_email_thread_id"],
                                          "label": "needs-review"}).ok
    draft = t.call("gmail__create_draft", {"access_token": tok, "recipient_email_addresses": ["a@x.org"],
                                           "subject": "D", "body": "B"}).output
    assert set(draft) == {"message", "draft_id"}
    out = t.call("gmail__send_email_from_draft", {"access_token": tok, "draft_id": draft["draft_id"]}).output
    assert set(out) == {"message", "sent_email_thread_id", "sent_email_id"}
    assert not t.call("gmail__create_draft", {"access_token": tok, "recipient_email_addresses": ["a@x.org"],
                                              "body": "B", "belongs_to_email_thread_id": 999}).ok


def test_open_login_only_without_seeded_accounts(tmp_path):
    s = AppsState(open_login=True)
    t = AppsToolkit(s, tmp_path)
    assert t.call("gmail__login", {"username": "any@x.org", "password": "x"}).ok
    s.add_account("phone", "555", "pw")
    assert not t.call("phone__login", {"username": "555", "password": "nope"}).ok


def test_file_tools_never_leave_the_workspace(tmp_path):
    _, t = kit(tmp_path)
    (tmp_path / "secret.txt").write_text("s")
    for path in ("../secret.txt", "/etc/passwd", "a/../../secret.txt"):
        r = t.call("read_file", {"path": path})
        assert not r.ok and "outside the workspace" in r.error
    os.symlink(tmp_path / "secret.txt", tmp_path / "ws" / "link.txt")
    assert not t.call("read_file", {"path": "link.txt"}).ok
    assert not t.call("write_file", {"path": "../x.txt", "content": "x"}).ok
    assert t.call("write_file", {"path": "sub/r.md", "content": "hello end"}).ok
    assert t.call("edit_file", {"path": "sub/r.md", "old_text": "end", "new_text": "X\nend"}).ok
    assert (tmp_path / "ws" / "sub" / "r.md").read_text() == "hello X\nend"


def test_a_path_the_os_refuses_is_a_tool_error_for_the_agent(tmp_path):
    _, t = kit(tmp_path)
    for tool, args in [("write_file", {"path": "a\x00b", "content": "x"}), ("write_file", {"path": "y" * 5000, "content": "x"}),
                       ("read_file", {"path": "z" * 5000}), ("list_dir", {"path": "q" * 5000}),
                       ("edit_file", {"path": "e" * 5000, "old_text": "a", "new_text": "b"}),
                       ("delete_file", {"path": "d\x00"})]:
        r = t.call(tool, args)
        assert not r.ok and ("Invalid path" in r.error or "Cannot use path" in r.error), (tool, r.error)


def test_what_the_agent_writes_to_the_workspace_is_masked(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdef1234567890")
    _, t = kit(tmp_path)
    assert t.call("write_file", {"path": "n.md", "content": "key sk-test-abcdef1234567890"}).ok
    assert t.call("edit_file", {"path": "n.md", "old_text": "key", "new_text": "sk-test-abcdef1234567890"}).ok
    text = (tmp_path / "ws" / "n.md").read_text()
    assert "abcdef1234567890" not in text and "***" in text


def test_read_csv_and_pdf(tmp_path):
    _, t = kit(tmp_path)
    (tmp_path / "ws" / "d.csv").write_text("a,b\n1,2\n3,4\n")
    (tmp_path / "ws" / "p.pdf").write_bytes(write_pdf(["Policy (v2)", "Budget cap: EUR 500"]))
    csv_out = t.call("read_file", {"path": "d.csv"}).output
    assert csv_out["columns"] == ["a", "b"] and csv_out["row_count"] == 2
    pdf_out = t.call("read_file", {"path": "p.pdf"}).output
    assert pdf_out["content"] == "Policy (v2)\nBudget cap: EUR 500"
    assert snapshot_files(tmp_path / "ws")["p.pdf"].endswith("EUR 500")
    assert extract_text(write_pdf(["x"], compress=False)) == "x"


def test_appworld_file_system_app(tmp_path):
    s = AppsState(open_login=True)
    t = AppsToolkit(s, tmp_path)
    tok = t.call("file_system__login", {"username": "u@x.org", "password": "pw"}).output["access_token"]
    assert not t.call("file_system__create_directory", {"access_token": tok, "directory_path": "~/a/b"}).ok
    assert t.call("file_system__create_directory", {"access_token": tok, "directory_path": "~/a/b", "recursive": True}).ok
    out = t.call("file_system__create_file", {"access_token": tok, "file_path": "~/a/b/n.txt", "content": "x"}).output
    assert out == {"message": "File created.", "file_path": "/a/b/n.txt"}
    assert t.call("file_system__copy_directory", {"access_token": tok, "source_directory_path": "~/a",
                                                  "destination_directory_path": "~/c"}).ok
    assert t.call("file_system__move_file", {"access_token": tok, "source_file_path": "/c/b/n.txt",
                                             "destination_file_path": "/m.txt"}).ok
    listing = t.call("file_system__show_directory", {"access_token": tok}).output
    assert listing == ["/a/", "/a/b/", "/a/b/n.txt", "/c/", "/c/b/", "/m.txt"]
    assert t.call("file_system__show_file", {"access_token": tok, "file_path": "~/m.txt"}).output["content"] == "x"
    assert not (tmp_path / "m.txt").exists()  # the app's file system is not the workspace


def test_the_snapshot_judges_read_never_follows_a_link_out_of_the_workspace(tmp_path):
    """What checks and judges read of the workspace obeys the file tools' rule: a file link leading
    out of it (which a hostile dataset or a harness sharing the folder could plant) is not read."""
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("SECRET")
    (ws / "sub" / "inside.txt").write_text("fine")
    os.symlink(tmp_path / "secret.txt", ws / "link.txt")
    os.symlink(ws / "sub" / "inside.txt", ws / "alias.txt")  # a link that stays inside is read
    os.symlink(tmp_path, ws / "up", target_is_directory=True)
    snap = snapshot_files(ws)
    assert "SECRET" not in "".join(snap.values())
    assert snap == {"alias.txt": "fine", "sub/inside.txt": "fine"}
