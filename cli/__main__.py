"""`python -m cli` runs the console script (what `nimbase` runs)."""

from nimbase.collector import pause_for_startup

pause_for_startup()  # cli.main resumes it, or the command once what it starts is built
from cli.main import main  # noqa: E402

raise SystemExit(main())
