"""The desk's screens: grading (the main one), queue, bundle browser, help, and small modal pickers."""
