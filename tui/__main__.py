import sys

from gradedesk.tui.cli import main

sys.exit(main())
