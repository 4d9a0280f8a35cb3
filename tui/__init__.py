"""The grading desk: a keyboard-driven Textual app. Thin: every DB call goes through core.review in a worker thread."""
