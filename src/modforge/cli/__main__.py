"""python3 -m modforge.cli: the same as the modforge command."""

import sys

from . import main

sys.exit(main())
