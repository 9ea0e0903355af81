"""``python -m webwise`` is the ``webwise`` command."""

import sys

from webwise.cli import main

sys.exit(main())
