"""A view's rows painted ahead: what Textual's styles cache makes of a block view's lines (its border and title,
padding, background, tint and the app's line filters), made between keys for an item not shown yet.

On a new item every row of both answer panes changes, and Textual paints each through its styles cache: about 0.15 ms
a row, 12 ms of an item's 30 ms paint at scale. A neighbour the desk prepared is painted ahead, a few rows a step
(tui/idle_work.py), by that same styles cache, and its rows are kept with the signature they were painted under:
everything the styles cache paints from (BlockView.paint_signature). When the item is shown at the top of the view
under an equal signature, its rows are the ones painted ahead; under any other (a focus moved, a resize, a theme),
Textual paints them as always.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip


def title_content(title: Text) -> Content:
    """The border title Textual keeps for `title` (as its border_title setter makes it)."""
    return Content.from_rich_text(title).expand_tabs(4).split()[0]


def content_key(content: Content | None) -> tuple | None:
    """A Content compared with its styles (Content's own == compares the text alone)."""
    return None if content is None else (content.plain, tuple(content.spans))


@dataclass(frozen=True)
class Painted:
    """A view's rows, top to bottom, painted under `signature`."""
    signature: tuple
    strips: list[Strip]

    def rows(self, crop: Region, width: int) -> list[Strip]:
        """The rows within `crop` (of a view `width` wide), as the styles cache gives them."""
        strips = self.strips[crop.y:crop.bottom]
        if crop.column_span != (0, width):
            strips = [strip.crop(crop.x, crop.right) for strip in strips]
        return strips
