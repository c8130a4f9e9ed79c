"""``python -m steadyflow.testing.emulator``: serve the provider emulator."""

import sys

from ._cli import main

sys.exit(main())
