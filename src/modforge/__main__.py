"""python3 -m modforge: the same as the modforge command."""

import sys

from .cli import main

sys.exit(main())
