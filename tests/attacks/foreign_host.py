"""A host in a process of its own, so that tests can choose its uid and what its kernel allows:
it runs one escape through the escaped worker that reads this host's ``/proc/<pid>/environ``
and ``/proc/<pid>/mem`` (where ``WEBWISE_TEST_SECRET`` is, as an API key would be), and
prints the run's result as JSON.

Usage: foreign_host.py [--refuse-user-namespaces] (with RestrictedPython on PYTHONPATH if this
interpreter is not the project's). The option first installs a seccomp filter
that fails ``unshare`` with EPERM, as a container's default profile or a sysctl would; the
worker and its children inherit it.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import sys
from dataclasses import asdict

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(TESTS), TESTS]

from sandbox import ActionReply, Limits, Sandbox, host  # noqa: E402

# The worker runs isolated (-I): hand it the packages this host found (PYTHONPATH included).
PATHS = [TESTS] + [path for path in sys.path if path.endswith("site-packages")]
ESCAPED_BOOT = (f"import sys; sys.path[:0] = [sys.argv[1], *{PATHS!r}]; "
                "from attacks.escaped_worker import main; main(int(sys.argv[2]))")
SECRET = os.environ["WEBWISE_TEST_SECRET"].encode()
_SYS_UNSHARE, _RET_EPERM, _RET_ALLOW = 272, 0x00050001, 0x7FFF0000


def refuse_user_namespaces() -> None:
    program = [(0x20, 0, 0, 0), (0x15, 0, 1, _SYS_UNSHARE), (0x06, 0, 0, _RET_EPERM), (0x06, 0, 0, _RET_ALLOW)]
    raw = b"".join(struct.pack("=HBBI", *insn) for insn in program)
    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.c_char_p(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not install the test's seccomp filter")


def main() -> None:
    if "--refuse-user-namespaces" in sys.argv:
        refuse_user_namespaces()
    host._BOOT = ESCAPED_BOOT
    code = (f"print(open('/proc/{os.getpid()}/environ', 'rb').read().decode(errors='replace'))\n"
            f"with open('/proc/{os.getpid()}/mem', 'rb', buffering=0) as mem:\n"
            f"    mem.seek({id(SECRET) + sys.getsizeof(b'') - 1})\n"
            f"    print(mem.read({len(SECRET)}).decode(errors='replace'))\n")
    with Sandbox(Limits(wall_seconds=5.0, cpu_seconds=2.0)) as box:
        result = box.run(code, data={}, functions=[], handler=lambda *call: ActionReply())
    print(json.dumps(asdict(result)))


main()
