"""The command palette's entries for a screen's rarer actions: a Textual command Provider a screen declares in its
COMMANDS, listing what the screen's `palette_commands()` offers at that moment (titles change with the settings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider


class PaletteCommand(NamedTuple):
    title: str
    help: str
    callback: Callable[[], object]


class HasPaletteCommands(Protocol):
    def palette_commands(self) -> list[PaletteCommand]: ...


class ScreenCommands(Provider):
    def _commands(self) -> list[PaletteCommand]:
        return cast(HasPaletteCommands, self.screen).palette_commands()

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.title, command.callback, text=command.title, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            if (score := matcher.match(command.title)) > 0:
                yield Hit(score, matcher.highlight(command.title), command.callback, text=command.title,
                          help=command.help)
