"""core/config.py: the environment is read when asked, flags aside."""

from __future__ import annotations

from gradedesk.core.config import grader_name, store_path


def test_default_grader_prefers_the_environment(monkeypatch):
    monkeypatch.setenv("GRADEDESK_GRADER", "carol")
    assert grader_name() == "carol"
    monkeypatch.delenv("GRADEDESK_GRADER")
    assert grader_name()


def test_store_path_prefers_the_environment(monkeypatch):
    monkeypatch.setenv("GRADEDESK_STORE", "/tmp/elsewhere.db")
    assert store_path() == "/tmp/elsewhere.db"
    monkeypatch.delenv("GRADEDESK_STORE")
    assert store_path() == "store.db"
