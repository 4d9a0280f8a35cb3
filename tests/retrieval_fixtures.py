"""A small, real Python repository on disk for the retrieval tests: code, tests, docs, ignored and odd files."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

INVENTORY = '''\
"""Inventory of parcels."""

import json
from collections import OrderedDict

MAX_WEIGHT = 30
DEFAULT_ZONE = "north"


def parse_weight(text):
    """Turn "12kg" into 12.0."""
    return float(text.rstrip("kg"))


@staticmethod
def ship_parcel(parcel, zone=DEFAULT_ZONE):
    weight = parse_weight(parcel["weight"])
    if weight > MAX_WEIGHT:
        raise ValueError("too heavy")
    return json.dumps({"zone": zone, "weight": weight})


class ParcelStore:
    """Keeps parcels by id."""

    kind = "store"

    def __init__(self):
        self.items = OrderedDict()

    def add(self, parcel_id, parcel):
        self.items[parcel_id] = parcel
        return ship_parcel(parcel)

    class Audit:
        def count_parcels(self, store):
            return len(store.items)
'''

ROUTING = '''\
from inventory import ParcelStore, ship_parcel


def route_everything(parcels):
    store = ParcelStore()
    for n, parcel in enumerate(parcels):
        store.add(n, parcel)
    return ship_parcel(parcels[0])


def computeRouteHash(route):
    return hash(tuple(route))
'''

TEST_INVENTORY = '''\
from inventory import parse_weight


def test_parse_weight():
    assert parse_weight("12kg") == 12.0
'''

README = """\
# Parcels

Intro text.

## Shipping zones

Parcels ship to the north zone unless told otherwise.

## Weights

Weights are parsed from strings like 12kg.
"""

GUIDE_RST = """\
Guide
=====

Welcome.

Installing
----------

Run the installer.
"""


def make_sample_repo(root: Path) -> Path:
    """Write the sample repository under root and return root."""
    files = {
        "inventory.py": INVENTORY,
        "routing.py": ROUTING,
        "tests/test_inventory.py": TEST_INVENTORY,
        "README.md": README,
        "docs/guide.rst": GUIDE_RST,
        "notes.txt": "".join(f"note line {i}\n" for i in range(1, 91)),
        "broken.py": "def broken(:\n    pass\n",
        ".gitignore": "ignored_dir/\n*.log\n",
        "ignored_dir/secret.py": "def hidden_function():\n    pass\n",
        "debug.log": "a log line\n",
        "node_modules/pkg/index.py": "def vendored():\n    pass\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (root / "image.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    (root / "huge.txt").write_text("x" * 1_100_000, encoding="utf-8")
    outside = root.parent / f"{root.name}-outside.py"
    outside.write_text("def outside_secret():\n    pass\n", encoding="utf-8")
    os.symlink(outside, root / "link_out.py")
    os.symlink(root / "routing.py", root / "link_in.py")
    return root
