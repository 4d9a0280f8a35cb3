"""The desk's settings (blind first, method names, the judge's rubric, the budget shown) and saving where the person
is with them, for their next desk."""

from __future__ import annotations

from gradedesk.core.review import queue as review
from gradedesk.core.review.session.jobs import Job, Shown
from gradedesk.core.review.session.state import DeskState


class Settings(DeskState):
    """The session's settings, and the job that keeps them with where the person is."""

    def set_show_judge(self, on: bool) -> str:
        self.show_judge = on
        name = self.machine_name
        return f"{name} shown from the start (open mode)" if on else f"blind first: {name} hidden until graded"

    def set_hide_methods(self, on: bool) -> str:
        self.hide_methods = on
        return ("method names hidden (Answer A / B) until both answers are graded; kept for your next desk: "
                "undo in the command palette" if on else "method names shown")

    def set_judge_rubric(self, version: str | None) -> tuple[str, Job[Shown] | None]:
        """Show the judge's verdicts under this rubric version (None: the newest); blind first still decides when."""
        self.judge_rubric = version
        self.forget()
        return (f"judge verdicts under rubric {version}" if version else "judge verdicts: the newest"), self.reload()

    def set_budget(self, budget: int) -> str:
        """Show raw beside the bundled answer at `budget`; the desk then counts, orders and reloads anew."""
        if self.run is not None:
            self.run = self.run.showing(budget)
            self.forget()
            self.total = None  # counted again for this budget's shown answers
            self.progress = None
        return f"raw beside the bundled answer at {budget:,} tokens"

    def save_state(self) -> Job[None] | None:
        """Store where the person is, with the filters and settings (a recheck pass does not move it)."""
        if self.recheck or self.run is None:
            return None
        run, person, pk = self.run, self.person, self.item.question_pk if self.item else None
        settings = {"filters": self.filters.to_dict(), "show_judge": self.show_judge,
                    "hide_methods": self.hide_methods, "judge_rubric": self.judge_rubric, "budget": run.bundle_budget}
        return Job("save desk state", lambda store: review.save_desk_state(store, person, run.id, pk, settings),
                   holds_keys=False)
