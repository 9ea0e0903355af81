"""``python -m webwise`` and the ``webwise`` console script."""

import sys


def run() -> int:
    """:func:`webwise.cli.main`, with Ctrl-C while it is being imported caught like Ctrl-C in it.

    The command's own handler exists only once ``webwise.cli`` and all it uses are imported,
    about a third of a second after start; this module imports nothing of webwise's but the
    package, which imports nothing itself.
    """
    try:
        from webwise.cli import main
    except KeyboardInterrupt:
        print("webwise: interrupted", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
