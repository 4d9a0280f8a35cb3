"""What the grading panes show of an answer's claims, through the desk session and claim mode's store calls
(core/review/claim_desk.py) on a real claims store, without Textual: the machine faithfulness verdicts stay hidden
until every claim is marked (blind first), and show from the start in open mode. (Claim mode's keys, and the pane
drawn again once claim mode closes: tests/tui/test_claims.py.)"""

from __future__ import annotations

from gradedesk.core.review import claim_desk
from gradedesk.core.store.connection import open_store
from tests.fixtures.claims_store import build_claims_store
from tests.fixtures.desk import session_pane_text
from tests.fixtures.session import act, opened


def test_blind_first_in_the_grading_pane_until_every_claim_is_marked(tmp_path):
    """Was the Pilot test of that name in tests/tui/test_claims.py."""
    info = build_claims_store(tmp_path / "store.db")
    side = info.bundle_side
    with open_store(info.path) as store:
        session = opened(store, info.fixture)
        before = session_pane_text(session, side)
        assert "faithfulness (llm:gpt-4o-mini, offline-rapidfuzz): hidden until you mark the claims (c)" in before
        assert "faithfulness 0.60" not in before
        sheet = claim_desk.open_claims(store, info.bundled, "alice")
        assert len(sheet.claims) == 6
        for claim, what in zip(sheet.claims, ("supported", "supported", "unsupported", "miscited", "supported")):
            claim_desk.mark(store, info.bundled, "alice", sheet.claims, claim, what, scorers_visible=False)
        act(store, session, session.reload())  # five of six
        text = session_pane_text(session, side)
        assert "hidden until you mark the claims" in text and "faithfulness 0.60" not in text
        assert "claims 6 · 1 invalid citation · you marked 5 of 6" in text
        claim_desk.mark(store, info.bundled, "alice", sheet.claims, sheet.claims[5], "not_claim",
                        scorers_visible=False)
        act(store, session, session.reload())
        after = session_pane_text(session, side)
        assert "faithfulness 0.60 (llm:gpt-4o-mini)" in after and "faithfulness 0.80 (offline-rapidfuzz)" in after
        assert "you marked 6 of 6: faithfulness 0.80, citation precision 0.50" in after
        bob = opened(store, info.fixture, "bob", show_judge=True)  # open mode: shown from the start
        assert "faithfulness 0.60 (llm:gpt-4o-mini)" in session_pane_text(bob, side)
