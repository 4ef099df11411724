"""`python -m conformance`: the CLI, for environments where the console script is not on PATH."""

from conformance.cli import main

raise SystemExit(main())
