"""In-context examples as data: ``manual/`` (hand-written, one per task of the paper's 48)
and ``auto/`` (harvested). A package only so that they install with the code; see README.md
here for the format and ``webwise.examples`` / ``webwise.store`` for the loaders."""
