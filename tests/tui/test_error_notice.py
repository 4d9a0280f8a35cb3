"""An error reported on the desk is shown in a notification, literally (brackets are not read as markup)."""

from __future__ import annotations

import pytest

from tests.fixtures.desk import make_app, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_an_error_shows_its_text_literally_in_a_notification(fixture_store):
    app = make_app(fixture_store.path)
    async with app.run_test(size=(140, 44), notifications=True) as pilot:  # run_test hides notifications by default
        await settle(pilot)
        app.report("store locked: [run 1] busy", error=True)
        await settle(pilot)
        assert "store locked: [run 1] busy" in screen_text(app)
    assert app.return_code in (None, 0)
