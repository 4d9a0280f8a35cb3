"""The command palette's entries for a screen's rarer actions: a Textual command Provider a screen declares in its
COMMANDS, listing what the screen's `palette_commands()` offers at that moment (titles change with the settings).

A title is shown literally: it may name something a user chose (a rubric version), and the palette would otherwise
read it as markup. A help line is the desk's own text."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from gradedesk.tui.widgets.literal import clean


class PaletteCommand(NamedTuple):
    title: str  # shown literally
    help: str  # the desk's own words: read as markup by the palette
    callback: Callable[[], object]


class HasPaletteCommands(Protocol):
    def palette_commands(self) -> list[PaletteCommand]: ...


class ScreenCommands(Provider):
    def _commands(self) -> list[PaletteCommand]:
        return cast(HasPaletteCommands, self.screen).palette_commands()

    async def discover(self) -> Hits:
        for command in self._commands():
            title = clean(command.title)
            yield DiscoveryHit(Content(title), command.callback, text=title, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            title = clean(command.title)
            # Matcher.highlight would parse the title as markup: highlight the matched letters of the plain text
            score, offsets = matcher.fuzzy_search.match(matcher.query, title)
            if score > 0:
                shown = Content(title)
                for at in offsets:
                    if not title[at].isspace():
                        shown = shown.stylize(matcher.match_style, at, at + 1)
                yield Hit(score, shown, command.callback, text=title, help=command.help)
