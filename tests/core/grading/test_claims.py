"""Claims and their citations resolved against an answer's evidence: labels to bundle snippets, files and lines to raw
hits, invalid ones flagged with the reason; which evidence lines a claim points the person to."""

from __future__ import annotations

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.claims import Claim, EvidenceLine, LineIndex, focus_lines, split_claims

CART = '''def apply_discount(amount):
    """Ten percent off orders of 100 or more."""
    return amount * 0.9 if amount >= 100 else amount'''
PRICES = '''def unit_price(sku):
    """The price of one unit; unknown SKUs raise KeyError."""
    return PRICES[sku]'''
TOTAL = '''def total(self):
    subtotal = sum(unit_price(sku) * n for sku, n in self.items.items())
    return apply_discount(subtotal)'''

SNIPPETS = [Evidence("shop/cart.py", "apply_discount", "c1", 21, 23, CART, position=1),
            Evidence("shop/prices.py", "unit_price", "c2", 6, 8, PRICES, position=2),
            Evidence("shop/cart.py", "Cart.total", "c3", 16, 18, TOTAL, position=3)]


def test_bundled_answer_labels_resolve_to_snippets_and_unknown_labels_are_invalid():
    answer = ("Cart.total [Evidence 3] calls apply_discount, which takes ten percent off orders of 100 or more "
              "[Evidence 1]. Prices come from unit_price [Evidence 2, 7]. It caches prices in Redis.")
    claims = split_claims(answer, SNIPPETS)
    assert [c.text for c in claims] == [
        "Cart.total [Evidence 3] calls apply_discount, which takes ten percent off orders of 100 or more "
        "[Evidence 1].", "Prices come from unit_price [Evidence 2, 7].", "It caches prices in Redis."]
    assert [c.evidence for c in claims] == [(3, 1), (2,), ()]
    assert [c.invalid for c in claims] == [0, 1, 0]
    bad = claims[1].citations[1]
    assert (bad.target, bad.evidence, bad.problem) == ("Evidence 7", (), "Evidence 7 is not in the evidence "
                                                                         "(it has 3 items)")
    assert not claims[2].cited
    assert answer[claims[1].start:claims[1].end] == claims[1].text


def test_raw_answer_files_resolve_to_every_hit_of_the_file_and_lines_to_the_hit_holding_them():
    answer = ("apply_discount takes ten percent off (File: shop/cart.py). Cart.total calls it (File: cart.py:17). "
              "Checkout is in shop/checkout.py:4. Discounts start at 100 (File: shop/cart.py:40).")
    c = split_claims(answer, SNIPPETS)
    assert c[0].evidence == (1, 3)  # both hits of the file
    assert c[1].evidence == (3,) and c[1].citations[0].lines == (17, 17)  # a path suffix; line 17 is in hit 3
    assert c[2].citations[0].problem == "shop/checkout.py is not in the evidence"
    assert c[3].citations[0].problem == ("line 40 of shop/cart.py is not in the evidence "
                                         "(it shows lines 21-23, 16-18)")
    assert [x.invalid for x in c] == [0, 0, 1, 1]


def test_an_exact_path_wins_over_a_suffix():
    ev = [Evidence("core/store/store.db-schema.sql", text="-- x", position=1, start_line=1, end_line=1),
          Evidence("store.db-schema.sql", text="-- x", position=2, start_line=1, end_line=1)]
    [c] = split_claims("- `-- x` (File: store.db-schema.sql:1)", ev)
    assert c.evidence == (2,)


def test_evidence_without_line_numbers_is_checked_by_file_only():
    ev = [Evidence("docs/notes.md", position=1)]  # an imported log that named only its files
    [c] = split_claims("The notes say so (File: docs/notes.md:12).", ev)
    assert c.evidence == (1,) and c.invalid == 0
    assert split_claims("It is there [Evidence 1].", [])[0].citations[0].problem == \
        "Evidence 1 is not in the evidence (the answer had no evidence)"


def test_claims_round_trip_as_stored_json():
    claims = split_claims("apply_discount takes ten percent off [Evidence 1] (File: shop/cart.py:22).", SNIPPETS)
    assert [Claim.from_dict(c.to_dict()) for c in claims] == claims


def test_focus_lines_cited_lines_then_best_lines_of_cited_evidence_then_a_suggestion():
    index = LineIndex(SNIPPETS)
    named, cited, uncited, nothing = split_claims(
        "It returns the amount times 0.9 (File: shop/cart.py:23).\n"
        "The total sums unit_price times n [Evidence 3].\n"
        "Unknown SKUs raise KeyError in unit_price.\n"
        "Everything is fine.", SNIPPETS)
    assert focus_lines(named, index).lines == (EvidenceLine(1, 23),)
    f = focus_lines(cited, index)
    assert f.evidence == (3,) and not f.suggested and f.lines[0] == EvidenceLine(3, 17)
    s = focus_lines(uncited, index)
    assert s.suggested and s.evidence == () and s.lines[0] == EvidenceLine(2, 7)
    assert focus_lines(nothing, index).lines == ()  # nothing matches well enough to suggest
