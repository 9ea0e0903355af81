"""What running generated code *without* the sandbox looks like: plain exec() next to the
host's own objects. Tests run this in a throwaway process to show each attack in the suite has
a real effect when nothing contains it. Usage: naive_host.py PROGRAM_FILE SENTINEL_PATH
"""

import functools
import json
import math
import os
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(TESTS), TESTS]

from attacks.toy_host import ToyHost  # noqa: E402

SECRET = os.environ["WEBWISE_TEST_SECRET"]


def make_action(method):
    @functools.wraps(method)
    def action(*args, **kwargs):
        return method(*args, **kwargs)

    return action


def main() -> None:
    with open(sys.argv[1]) as f:
        code = f.read()
    host = ToyHost(SECRET)
    before = host.snapshot()
    program_globals = {"task": "Click Submit.", "observation": host.visible(),
                       "click": make_action(host.click), "env": host, "SENTINEL": sys.argv[2]}
    try:
        exec(code, program_globals)
    except Exception as exc:  # a naive host survives ordinary errors only
        print("program raised", type(exc).__name__)
    tampered = host.snapshot() != before or json.dumps([1]) != "[1]" or math.pi != 3.141592653589793
    reward = max(host.reward, host.step(("noop",))[1])
    status = {"reward": reward, "done": host.done, "actions": host.actions, "tampered": tampered,
              "secret_leaked": SECRET in repr(host.args_seen)}
    print("STATUS", repr(status), flush=True)


main()
