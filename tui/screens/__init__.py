"""The desk's screens: grading (the main one), queue, bundle browser, claim mode, help, and small modal pickers."""
