"""``python -m sectio.cli``."""

import sys

from sectio.cli import main

sys.exit(main())
