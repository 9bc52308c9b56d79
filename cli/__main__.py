"""`python -m cli` runs the console script (what `nimbase` runs)."""

from cli.main import main

raise SystemExit(main())
