"""The word diff behind the desk's A-against-B screen (core/text/word_diff.py)."""

from __future__ import annotations

from gradedesk.core.text.word_diff import DiffPart, word_diff


def test_words_only_in_one_text_are_deleted_or_inserted():
    d = word_diff("open_store opens the store; create=False raises StoreError.",
                  "open_store opens or creates the store; create=False raises an error.")
    assert d.parts == [DiffPart("same", "open_store opens "), DiffPart("inserted", "or creates "),
                       DiffPart("same", "the store; create=False raises "), DiffPart("deleted", "StoreError"),
                       DiffPart("inserted", "an error"), DiffPart("same", ".")]
    # words and runs of punctuation: open_store opens the store ; create = False raises StoreError .
    assert (d.words_a, d.words_b, d.deleted, d.inserted) == (11, 14, 1, 4)


def test_whitespace_is_no_difference_and_the_shared_text_is_b_as_written():
    a = "Tokens are counted\nexactly,   with tiktoken."
    b = "  Tokens are counted exactly, with tiktoken.\n"
    d = word_diff(a, b)
    assert [p.kind for p in d.parts] == ["same"] and d.parts[0].text == b
    assert d.same_share == 1.0


def test_long_near_identical_answers_differ_in_one_word():
    words = [f"w{n % 50}" for n in range(3000)]  # many repeats: no word is junk to the matcher
    changed = list(words)
    changed[1500] = "other"
    d = word_diff(" ".join(words), " ".join(changed))
    assert (d.deleted, d.inserted) == (1, 1)
    assert [p.text for p in d.parts if p.kind != "same"] == ["w0 ", "other "]
    assert round(d.same_share, 4) == round(2999 / 3000, 4)


def test_empty_texts():
    assert word_diff("", "").parts == [] and word_diff("", "").same_share == 1.0
    d = word_diff("", "new words")
    assert d.parts == [DiffPart("inserted", "new words")] and d.same_share == 0.0


def test_a_deleted_word_is_kept_apart_from_what_b_glued_to_it():
    d = word_diff("creating it. [Evidence 1]", "creating it.")
    assert d.parts == [DiffPart("same", "creating it. "), DiffPart("deleted", "[Evidence 1]")]
