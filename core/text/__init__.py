"""Text in, words and counts out: exact tiktoken counts (tokens), code-aware terms with the one stop-word vocabulary
and identifier splitter (codeterms), the question analysed once into a QuestionInfo (question), and the fuzzy term
matching the offline graders use (matching). Nothing here reads the store."""
