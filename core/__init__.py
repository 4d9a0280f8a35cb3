"""gradedesk core: everything that is not UI. Never imports textual (tests/test_core_imports.py proves it)."""

__version__ = "0.1.0"
