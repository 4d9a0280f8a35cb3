"""Packaging glue pyproject.toml cannot express: the card's top-level folders core/ and tui/ install as ONE namespace,
gradedesk.core and gradedesk.tui, so nothing named bare `core` or `tui` lands in site-packages."""

from setuptools import find_packages, setup

FOLDERS = ("core", "tui")

setup(
    packages=[f"gradedesk.{name}" for name in find_packages(include=[f"{f}{s}" for f in FOLDERS for s in ("", ".*")])],
    package_dir={f"gradedesk.{f}": f for f in FOLDERS},
)
