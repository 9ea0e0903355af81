"""``python -m tests.reference OUT.json [TASK ...]``: write a replay file of the reference programs."""

import sys
from pathlib import Path

from tests.reference import covered, write_replay

if __name__ == "__main__":
    out, *tasks = sys.argv[1:]
    print(write_replay(Path(out), tasks or covered()))
