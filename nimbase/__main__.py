"""`python -m nimbase` runs the console script."""

from nimbase.cli import main

raise SystemExit(main())
