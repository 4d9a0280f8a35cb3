"""The grading screen (screen.py), its key table (keys.py) and what the keys do, by concern (grades.py, moves.py,
opens.py, reveal.py); view.py draws its text."""

from gradedesk.tui.screens.grading.screen import GradingScreen

__all__ = ["GradingScreen"]
