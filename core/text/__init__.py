"""Text in, words and counts out: exact tiktoken counts (tokens), code-aware terms with the one stop-word vocabulary
and identifier splitter (codeterms), the question analysed once into a QuestionInfo (question), and the fuzzy term
matching the offline graders use (matching); the prompt's text layout, the one writer and reader of its evidence
headers, marks and citations (prompt_layout); a word diff of two texts (word_diff); the one sanitizer of text bound
for a terminal, control and bidi characters shown as visible escapes (terminal). Nothing here reads the store."""
