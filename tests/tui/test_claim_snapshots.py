"""Snapshots of claim mode at a fixed size, from the claims fixture store (fixed times, seeds and grader; no cursor
blink). Update with `--snapshot-update` only after looking at the SVGs."""

from __future__ import annotations

import pytest

from tests.fixtures.claims_store import build_claims_store
from tests.fixtures.desk import make_app, settle

SIZE = (120, 40)


def _snap(snap_compare, tmp_path, *keys: str, size: tuple[int, int] = SIZE) -> bool:
    info = build_claims_store(tmp_path / "store.db")
    app = make_app(info.path)

    async def run_before(pilot) -> None:
        await settle(pilot)
        for key in ("h" if info.bundle_side == "left" else "l", "c", *keys):
            await pilot.press(key)
            await settle(pilot)

    return snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("keys", [("s", "s", "x"), ("s", "s", "x", "w", "s", "n")],
                         ids=["half_marked_scorers_hidden", "all_marked_scorers_shown"])
def test_claim_mode(snap_compare, tmp_path, keys):
    assert _snap(snap_compare, tmp_path, *keys)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_claim_mode_footer_at_small_sizes(snap_compare, tmp_path, size):
    """At the sizes terminals open at, claim mode's footer shows its marks with `? help` and `^q quit`, uncut."""
    assert _snap(snap_compare, tmp_path, "s", size=size)
