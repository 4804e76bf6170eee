"""``python -m sectio``."""

import sys

from sectio.cli import main

sys.exit(main())
