"""Attack suite: every attack must be contained by the sandbox, and (where safe) shown to work
under plain exec() in a throwaway process, so that each one is a real attack.

Containment means: no sentinel file written, no process left behind, no secret leaked into an
action's arguments or the output, the toy host's reward and page untouched, the host alive,
and a benign program in the same Sandbox still working afterwards.
"""

from __future__ import annotations

import ast
import ctypes
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import RestrictedPython

from sandbox import ActionReply, Limits, RunResult, Sandbox, confine, protocol
from attacks.toy_host import ToyHost

NAIVE_HOST = Path(__file__).parent / "attacks" / "naive_host.py"
SECRET = f"s3cret-{uuid.uuid4().hex[:12]}"
LIMITS = Limits(wall_seconds=3.0, cpu_seconds=1.0, max_actions=50, memory_mb=256, output_chars=2000)
DESTRUCTIVE = "resource bomb: not run unconfined"
# Bombs that only end at the CPU limit take about a second each: CI runs them, the default run not.
SLOW = {"cpu_loop", "cpu_bigint", "redos", "memory_growth", "memory_swallowed", "recursion_swallowed",
        "output_bomb", "sleep_busy_wait"}


@dataclass(frozen=True)
class Attack:
    name: str
    code: str
    proof: str                 # what the attack achieves under plain exec: file, reward, secret,
    skip: str | None = None    # tamper, host_dead, flood; or why that is not demonstrated


OS_SYSTEM = 'system("touch " + SENTINEL)'
WRAP_CLOSE = (
    "    if c.__name__ == '_wrap_close':\n"
    "        c.__init__.__globals__['system']('touch ' + SENTINEL)\n"
)

LEAK_SECRET = (  # a leaked repr of the naive host's globals holds SECRET: click the hidden button
    "start = leak.find('s3cret-')\n"
    "if start >= 0:\n"
    "    click('button', leak[start:leak.find(\"'\", start)])\n"
)

ATTACKS = [
    # imports
    Attack("import_os", f"import os\nos.{OS_SYSTEM}", "file"),
    Attack("from_os_import", f"from os import system\n{OS_SYSTEM}", "file"),
    Attack("import_os_path", f"import os.path\nos.{OS_SYSTEM}", "file"),
    Attack("import_sys", f"import sys\nsys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("import_subprocess", "import subprocess\nsubprocess.run(['touch', SENTINEL])", "file"),
    Attack("import_ctypes", "import ctypes\nctypes.CDLL(None).system(('touch ' + SENTINEL).encode())", "file"),
    Attack("import_importlib", f"import importlib\nimportlib.import_module('os').{OS_SYSTEM}", "file"),
    Attack("import_threading", "import threading\nt = threading.Thread(target=lambda: open(SENTINEL, 'w').close())\n"
           "t.start()\nt.join()", "file"),
    Attack("import_time", "import time\ntime.sleep(0.2)\nopen(SENTINEL, 'w').close()", "file"),
    Attack("import_pathlib", "import pathlib\npathlib.Path(SENTINEL).touch()", "file"),
    Attack("import_builtins", "import builtins\nbuiltins.open(SENTINEL, 'w').close()", "file"),
    Attack("kill_self", "import os\nos.kill(os.getpid(), 9)", "host_dead"),
    # builtins
    Attack("dunder_import", f"__import__('os').{OS_SYSTEM}", "file"),
    Attack("eval", "eval(\"__import__('os').system('touch ' + SENTINEL)\")", "file"),
    Attack("exec", "exec(\"import os; os.system('touch ' + SENTINEL)\")", "file"),
    Attack("compile", "exec(compile(\"open(SENTINEL, 'w').close()\", 'x', 'exec'))", "file"),
    Attack("open", "open(SENTINEL, 'w').close()", "file"),
    Attack("builtins_name", "__builtins__['open'](SENTINEL, 'w').close()", "file"),
    Attack("builtin_self", "len.__self__.open(SENTINEL, 'w').close()", "file"),
    Attack("getattr_dynamic", "getattr(len, '_' + '_self__').open(SENTINEL, 'w').close()", "file"),
    Attack("globals", "globals()['__builtins__']['open'](SENTINEL, 'w').close()", "file"),
    Attack("vars", "vars()['__builtins__']['open'](SENTINEL, 'w').close()", "file"),
    Attack("system_exit", "raise SystemExit(0)", "host_dead"),
    Attack("exit_builtin", "exit()", "host_dead"),
    Attack("keyboard_interrupt", "raise KeyboardInterrupt", "host_dead"),
    # class hierarchy walks
    Attack("subclasses_via_bases", "for c in ().__class__.__bases__[0].__subclasses__():\n" + WRAP_CLOSE, "file"),
    Attack("subclasses_via_mro", "for c in ().__class__.__mro__[-1].__subclasses__():\n" + WRAP_CLOSE, "file"),
    Attack("subclasses_via_getattr", "for c in getattr(object, '__subclasses__')():\n" + WRAP_CLOSE, "file"),
    Attack("subclasses_via_class", "class X:\n    pass\nfor c in X.__base__.__subclasses__():\n" + WRAP_CLOSE, "file"),
    Attack("subclasses_via_mro_method", "for c in object.mro()[0].__subclasses__():\n" + WRAP_CLOSE, "file"),
    # function internals
    Attack("function_globals", "b = click.__globals__['__builtins__']\nb = b if isinstance(b, dict) else b.__dict__\n"
           "b['open'](SENTINEL, 'w').close()", "file"),
    Attack("lambda_globals", "(lambda: 0).__globals__['__builtins__']['open'](SENTINEL, 'w').close()", "file"),
    Attack("function_closure", "click.__closure__[0].cell_contents.__self__.reward = 1.0", "reward"),
    Attack("function_wrapped", "click.__wrapped__.__self__.reward = 1.0", "reward"),
    Attack("function_code", "def f():\n    pass\nf.__code__ = compile(\"open(SENTINEL, 'w').close()\", 'x', 'exec')\nf()",
           "file"),
    Attack("function_globals_secret", "click('button', click.__globals__['SECRET'])", "secret"),
    # frames through generators, coroutines, tracebacks, exceptions
    Attack("generator_frame_dynamic", "g = (x for x in [1])\n"
           "getattr(g, 'gi_' + 'frame').f_builtins['open'](SENTINEL, 'w').close()", "file"),
    Attack("generator_frame", "g = (x for x in [1])\ng.gi_frame.f_builtins['open'](SENTINEL, 'w').close()", "file"),
    Attack("generator_f_back", "def gen():\n    yield g.gi_frame.f_back\ng = gen()\nfr = next(g)\n"
           "while 'SECRET' not in fr.f_globals:\n    fr = fr.f_back\nclick('button', fr.f_globals['SECRET'])", "secret"),
    Attack("coroutine_frame", "async def c():\n    pass\nco = c()\nb = co.cr_frame.f_builtins\nco.close()\n"
           "b['open'](SENTINEL, 'w').close()", "file"),
    Attack("async_generator_frame", "async def ag():\n    yield 1\na = ag()\n"
           "a.ag_frame.f_builtins['open'](SENTINEL, 'w').close()", "file"),
    Attack("traceback_frame", "try:\n    1 / 0\nexcept Exception as e:\n"
           "    e.__traceback__.tb_frame.f_builtins['open'](SENTINEL, 'w').close()", "file"),
    Attack("traceback_into_host", "try:\n    click('nope', 'nope')\nexcept Exception as e:\n    tb = e.__traceback__\n"
           "    while tb.tb_next:\n        tb = tb.tb_next\n    tb.tb_frame.f_locals['self'].reward = 1.0", "reward"),
    Attack("except_star", "try:\n    raise ExceptionGroup('g', [ValueError(1)])\nexcept* ValueError as eg:\n"
           "    eg.__traceback__.tb_frame.f_globals['__builtins__']['open'](SENTINEL, 'w').close()", "file"),
    Attack("exception_obj", "try:\n    env.no_such_attribute\nexcept AttributeError as e:\n    e.obj.reward = 1.0", "reward"),
    # attribute chains from allowed modules to sys/os
    Attack("re_enum_sys", f"import re\nre.enum.sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("datetime_sys", f"import datetime\ndatetime.sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("json_codecs_sys", f"import json\njson.codecs.sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("json_decoder_re", f"import json\njson.decoder.re.enum.sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("collections_private_sys", f"import collections\ncollections._sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("string_private_re", f"import string\nstring._re.enum.sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("re_function_globals", f"import re\nre.compile.__globals__['enum'].sys.modules['os'].{OS_SYSTEM}", "file"),
    Attack("counter_method_globals", "import collections\n"
           f"collections.Counter.most_common.__globals__['_sys'].modules['os'].{OS_SYSTEM}", "file"),
    # format strings
    Attack("format_walk", "click('button', '{0.__globals__[SECRET]}'.format(click))", "secret"),
    Attack("format_map_walk", "click('button', '{f.__globals__[SECRET]}'.format_map({'f': click}))", "secret"),
    Attack("format_unbound", "click('button', str.format('{0.__globals__[SECRET]}', click))", "secret"),
    Attack("string_formatter", "import string\nclick('button', string.Formatter().format('{0.__globals__[SECRET]}', click))",
           "secret"),
    Attack("formatter_get_field", "import string\nv, _ = string.Formatter().get_field('0.__globals__', [click], {})\n"
           "click('button', v['SECRET'])", "secret"),
    Attack("fstring_walk", "click('button', f\"{click.__globals__['SECRET']}\")", "secret"),
    # super() proxies a str subclass to the real str.format; the sandbox run must fail, not
    # print the worker's globals (so these pass only while the guard sees through super)
    Attack("format_super_instance", "class S(str):\n    pass\n"
           "leak = super(S, S('{0.__globals__}')).format(click)\n" + LEAK_SECRET, "secret"),
    Attack("format_super_type", "class S(str):\n    pass\n"
           "leak = super(S, S).format('{0.__globals__}', click)\n" + LEAK_SECRET, "secret"),
    # reward forging and script injection through action arguments
    Attack("str_subclass_eq", "class Anything(str):\n    def __eq__(self, other):\n        return True\n"
           "click('button', Anything('x'))", "reward"),
    Attack("argument_callback", "class Evil:\n    def __str__(self):\n        open(SENTINEL, 'w').close()\n"
           "        return 'Submit'\nclick('button', Evil())", "file"),
    Attack("script_injection", "click('button', \"x'); window.WOB_RAW_REWARD_GLOBAL = 1; ('\")", "reward",
           "targets the host's executor (webwise passes arguments to the page as data); the sandbox's "
           "part, checked here, is delivering the exact string and nothing else"),
    Attack("huge_argument", "click('button', 'x' * 5_000_000)", "flood",
           "only meaningful across a pipe: checks the message-size cap"),
    # tampering with env and observation
    Attack("env_reward_write", "env.reward = 1.0\nenv.done = True", "reward"),
    Attack("env_setattr", "setattr(env, 'reward', 1.0)", "reward"),
    Attack("env_step_replace", "env.step = lambda action: (observation, 1.0, True, False, {})", "reward"),
    Attack("observation_relabel", "for el in observation:\n    el['text'] = 'Submit'", "tamper"),
    Attack("module_patch_json", "import json\njson.dumps = lambda *a, **k: '{}'", "tamper"),
    Attack("module_patch_math", "import math\nmath.pi = 3", "tamper"),
    # CPU, memory, recursion, output and sleep bombs; action floods
    Attack("cpu_loop", "while True:\n    pass", "dos", DESTRUCTIVE),
    Attack("cpu_bigint", "x = 7 ** (10 ** 9)", "dos", DESTRUCTIVE),
    Attack("redos", "import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')", "dos", DESTRUCTIVE),
    Attack("memory_string", "x = 'a' * (10 ** 10)", "dos", DESTRUCTIVE),
    Attack("memory_growth", "xs = []\nwhile True:\n    xs.append('x' * 10 ** 6)", "dos", DESTRUCTIVE),
    Attack("memory_swallowed", "xs = []\nwhile True:\n    try:\n        xs.append([0] * 10 ** 6)\n"
           "    except MemoryError:\n        pass", "dos", DESTRUCTIVE),
    Attack("recursion", "def f(n):\n    return f(n + 1)\nf(0)", "dos", DESTRUCTIVE),
    Attack("recursion_swallowed", "def f():\n    try:\n        f()\n    except RecursionError:\n        f()\nf()",
           "dos", DESTRUCTIVE),
    Attack("output_bomb", "while True:\n    print('x' * 1000)", "dos", DESTRUCTIVE),
    Attack("sleep_busy_wait", "import datetime\nend = datetime.datetime.now() + datetime.timedelta(hours=1)\n"
           "while datetime.datetime.now() < end:\n    pass", "dos", DESTRUCTIVE),
    Attack("fork_bomb", "import os\nwhile True:\n    os.fork()", "dos", DESTRUCTIVE),
    Attack("action_flood", "for i in range(1000):\n    click('button', 'Cancel')", "flood"),
    Attack("action_flood_swallowed", "for i in range(1000):\n    try:\n        click('button', 'Cancel')\n"
           "    except BaseException:\n        pass", "flood"),
]

BENIGN = (
    "total = sum(len(el['text']) for el in observation)\n"
    "observation = click('button', 'Cancel')\n"
    "print(total, len(observation))\n"
)


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        found += [int(c) for c in children]
        todo += [int(c) for c in children]
    return found


def _processes_mentioning(token: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                if token in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


@pytest.fixture(scope="module")
def sandbox():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WEBWISE_TEST_SECRET", SECRET)  # a secret in the host's environment
        with Sandbox(LIMITS) as box:
            yield box


def test_suite_is_large_enough():
    assert len(ATTACKS) >= 40
    assert len({a.name for a in ATTACKS}) == len(ATTACKS)


@pytest.mark.parametrize("attack", [pytest.param(a, marks=pytest.mark.slow) if a.name in SLOW else a
                                    for a in ATTACKS], ids=lambda a: a.name)
def test_attack_is_contained(attack: Attack, sandbox: Sandbox, tmp_path: Path):
    sentinel = tmp_path / f"pwned-{uuid.uuid4().hex}"
    host = ToyHost(SECRET)
    before = host.snapshot()
    result = sandbox.run(attack.code, data={"task": "Click Submit.", "observation": host.visible(),
                                            "SENTINEL": str(sentinel)},
                         functions=["click", "env.step"], handler=host.handler)

    assert not sentinel.exists()
    assert not _processes_mentioning(sentinel.name)
    assert sandbox.worker_pid is None or not _descendants(sandbox.worker_pid)
    assert host.reward == 0.0 and not host.done
    assert host.snapshot() == before
    assert SECRET not in repr(host.args_seen) and SECRET not in result.output
    assert host.actions <= LIMITS.max_actions and result.actions <= LIMITS.max_actions
    assert not result.stopped
    if result.error is not None:
        assert "\n" not in result.error and "Traceback" not in result.error
    if attack.proof in ("file", "host_dead", "dos", "secret"):
        assert not result.ok, result
    if attack.name == "script_injection":
        assert host.args_seen == [("button", "x'); window.WOB_RAW_REWARD_GLOBAL = 1; ('")]
        assert all(type(arg) is str for arg in host.args_seen[0])

    after = ToyHost(SECRET)
    benign = sandbox.run(BENIGN, data={"task": "Click Cancel.", "observation": after.visible()},
                         functions=["click", "env.step"], handler=after.handler)
    assert benign.ok, benign
    assert benign.output == "12 2\n" and benign.actions == 1


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_works_under_plain_exec(attack: Attack, tmp_path: Path):
    if attack.skip:
        pytest.skip(attack.skip)
    sentinel = tmp_path / "pwned"
    program = tmp_path / "program.py"
    program.write_text(attack.code)
    completed = subprocess.run(
        [sys.executable, str(NAIVE_HOST), str(program), str(sentinel)],
        env={**os.environ, "WEBWISE_TEST_SECRET": SECRET}, cwd=tmp_path,
        capture_output=True, text=True, timeout=60,
    )
    status_lines = [line for line in completed.stdout.splitlines() if line.startswith("STATUS ")]
    if attack.proof == "host_dead":
        assert not status_lines, completed.stdout
        return
    assert status_lines, completed.stdout + completed.stderr
    status = ast.literal_eval(status_lines[-1].removeprefix("STATUS "))
    if attack.proof == "file":
        assert sentinel.exists(), completed.stdout + completed.stderr
    elif attack.proof == "reward":
        assert status["reward"] >= 1.0 or status["done"], status
    elif attack.proof == "secret":
        assert status["secret_leaked"], completed.stdout + completed.stderr
    elif attack.proof == "tamper":
        assert status["tampered"], status
    elif attack.proof == "flood":
        assert status["actions"] > LIMITS.max_actions, status
    else:
        pytest.fail(f"unknown proof {attack.proof}")


# A child that escaped the policy writes raw frames: the host must check every call again.
ESCAPED_BOOT = (
    f"import sys; sys.path[:0] = [sys.argv[1], {str(Path(__file__).parent)!r}]; "
    "from attacks.escaped_worker import main; main(int(sys.argv[2]))"
)
TOO_DEEP = "[" * (protocol.MAX_DEPTH + 8) + "]" * (protocol.MAX_DEPTH + 8)
VALID_CALL = '{"op":"call","name":"click","args":["button","Cancel"],"kwargs":{},"output":""}'
MALFORMED = "sandbox protocol error: malformed action call"


@pytest.fixture(scope="module")
def escaped():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sandbox.host._BOOT", ESCAPED_BOOT)
        with Sandbox(LIMITS) as box:
            yield box


def _send_raw(box: Sandbox, body: str, handler: Callable[[str, list, dict], ActionReply]) -> RunResult:
    """Have the escaped child write one frame around ``body``, then wait for the reply (or the kill)."""
    code = (f"import struct\nbody = {body.encode()!r}\n"
            "channel.sendall(struct.pack('>I', len(body)) + body)\nchannel.recv(1 << 16)\n")
    return box.run(code, data={}, functions=["click", "env.step"], handler=handler)


@pytest.mark.parametrize("body, error", [
    ('{"op":"call","name":"open","args":[],"kwargs":{}}', MALFORMED),
    ('{"op":"call","name":["click"],"args":[],"kwargs":{}}', MALFORMED),
    ('{"op":"call","name":"click","args":{"0":"button"},"kwargs":{}}', MALFORMED),
    ('{"op":"call","name":"click","args":[],"kwargs":["text"]}', MALFORMED),
    ('{"op":"call","name":"click","args":[' + TOO_DEEP + '],"kwargs":{}}',
     f"{MALFORMED} (data nested deeper than {protocol.MAX_DEPTH} levels)"),
    ('{"op":"call","name":"click","args":["button",1e999],"kwargs":{}}', f"{MALFORMED} (non-finite float)"),
    ('{"op":"call","name":"click","args":[],"kwargs":{1:"x"}}',  # JSON keys are strings: not even decoded
     "sandbox protocol error: malformed message: JSONDecodeError"),
    ('{"op":"call","name":"click","args":["button","Cancel"],"kwargs":{},"output":["x"]}', MALFORMED),
], ids=["unknown_name", "name_not_str", "args_not_list", "kwargs_not_dict", "too_deep", "infinity",
        "non_str_key", "output_not_str"])
def test_host_refuses_forged_action_calls(body: str, error: str, escaped: Sandbox):
    """A child's encoder never sends these, but a child that escaped the policy writes any frame:
    only the host's own check keeps them from the handler, and a bad call ends the run in one line."""
    calls: list[tuple[str, list, dict]] = []

    def handler(name: str, args: list, kwargs: dict) -> ActionReply:
        calls.append((name, args, kwargs))
        return ActionReply()

    result = _send_raw(escaped, body, handler)
    assert (result.ok, result.error, result.actions, calls) == (False, error, 0, [])
    assert result.seconds < LIMITS.wall_seconds  # killed for the breach, not timed out

    host = ToyHost(SECRET)
    assert _send_raw(escaped, VALID_CALL, host.handler).ok  # the same path carries a valid call
    assert host.args_seen == [("button", "Cancel")]


def test_a_confined_child_is_not_dumpable():
    """A crash a program can cause at will (CPython's unchecked C recursion through nested
    iterators) must start no core-dump helper, and no process of the same user may ptrace the
    child. The seccomp filter then refuses prctl, so the child cannot undo it."""
    pid = os.fork()
    if pid == 0:
        try:
            confine.isolate_from_other_processes()
            libc = ctypes.CDLL(None, use_errno=True)
            os._exit(10 + libc.prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE: 0 or 1
        finally:
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 10


# The second wall: what a child that escaped the policy reaches with plain Python and ctypes.
# All but kill and chmod worked against the seccomp deny list the allow list replaced; those two
# stand for the older routes of their class.
SYSCALL = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
CHECKED = ("def check(result):\n    if result < 0:\n        raise OSError(ctypes.get_errno(), 'refused')\n"
           "    return result\n")
# A valid call, whose reply the child does not wait for in recv(): a socket raises no SIGIO for
# data a reader is already blocked on.
CALL_FRAME = ("import struct, time\n"
              "body = " + repr(VALID_CALL.encode()).replace("{", "{{").replace("}", "}}") + "\n"
              "channel.sendall(struct.pack('>I', len(body)) + body)\ntime.sleep(0.5)\nchannel.recv(1 << 16)\n")
SECRET_BYTES = SECRET.encode()  # what a hosted model's API key is: bytes in the host's memory


@dataclass
class Target:
    """What the escapes aim at: a process of the same user that belongs to no sandbox, with a
    secret in its environment; a file and a directory of the host's; the host's own memory."""

    victim: subprocess.Popen[bytes]
    file: Path
    directory: Path
    nice: int
    affinity: set[int]
    scheduler: int

    def placeholders(self) -> dict[str, object]:
        return {"victim": self.victim.pid, "host": os.getpid(), "file": str(self.file),
                "directory": str(self.directory), "address": id(SECRET_BYTES) + sys.getsizeof(b"") - 1,
                "size": len(SECRET_BYTES), "cpu": min(self.affinity)}


@dataclass(frozen=True)
class Escape:
    name: str
    code: str                               # str.format'ed with Target.placeholders()
    held: Callable[[Target, RunResult], bool]


def _victim_alive(target: Target, result: RunResult) -> bool:
    return target.victim.poll() is None


def _host_environ_unread(target: Target, result: RunResult) -> bool:
    return Path("/proc/self/environ").read_bytes()[:200].decode(errors="replace") not in result.output


ESCAPES = [
    # signals by any route: SIGIO turned into SIGKILL, or plain SIGIO (default action: terminate)
    Escape("sigio_fcntl_setown", "import fcntl, os, signal\nfd = channel.fileno()\n"
           "fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGKILL)\nfcntl.fcntl(fd, fcntl.F_SETOWN, {victim})\n"
           "fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)\n" + CALL_FRAME,
           _victim_alive),
    Escape("sigio_ioctl_fiosetown", "import fcntl, struct\nfd = channel.fileno()\n"
           "fcntl.ioctl(fd, 0x8901, struct.pack('i', {victim}))\n"   # FIOSETOWN
           "fcntl.ioctl(fd, 0x5452, struct.pack('i', 1))\n" + CALL_FRAME,  # FIOASYNC
           _victim_alive),
    Escape("kill", "import os, signal\nos.kill({victim}, signal.SIGKILL)", _victim_alive),
    # mode and attribute changes by any syscall
    Escape("fchmodat2", SYSCALL + CHECKED + "check(libc.syscall(452, -100, {file!r}.encode(), 0o777, 0))",
           lambda t, r: t.file.stat().st_mode & 0o777 == 0o644),
    Escape("chmod", "import os\nos.chmod({file!r}, 0o777)", lambda t, r: t.file.stat().st_mode & 0o777 == 0o644),
    # mounts by any API: a tmpfs through the new mount API, a bind mount through open_tree
    Escape("fsopen_fsmount_move_mount", SYSCALL + CHECKED +
           "fs = check(libc.syscall(430, b'tmpfs', 0))\n"                   # fsopen
           "check(libc.syscall(431, fs, 6, None, None, 0))\n"                # fsconfig(CMD_CREATE)
           "mnt = check(libc.syscall(432, fs, 0, 0))\n"                      # fsmount
           "check(libc.syscall(429, mnt, b'', -100, {directory!r}.encode(), 4))",  # move_mount
           lambda t, r: not os.path.ismount(t.directory)),
    Escape("open_tree_bind_mount", SYSCALL + CHECKED +
           "tree = check(libc.syscall(428, -100, b'/proc', 1))\n"            # open_tree(CLONE)
           "check(libc.syscall(429, tree, b'', -100, {directory!r}.encode(), 4))",
           lambda t, r: not os.path.ismount(t.directory)),
    # scheduling of other processes
    Escape("setpriority", "import os\nos.setpriority(os.PRIO_PROCESS, {victim}, 19)",
           lambda t, r: os.getpriority(os.PRIO_PROCESS, t.victim.pid) == t.nice),
    Escape("sched_setaffinity", "import os\nos.sched_setaffinity({victim}, {{{cpu}}})",
           lambda t, r: os.sched_getaffinity(t.victim.pid) == t.affinity),
    Escape("sched_setscheduler",
           "import os\nos.sched_setscheduler({victim}, os.SCHED_IDLE, os.sched_param(0))",
           lambda t, r: os.sched_getscheduler(t.victim.pid) == t.scheduler),
    # other processes' memory and environment: the host's, and any process of the same user
    Escape("host_environ", "print(open('/proc/{host}/environ', 'rb').read()[:200].decode(errors='replace'))",
           _host_environ_unread),
    Escape("host_mem", "with open('/proc/{host}/mem', 'rb', buffering=0) as mem:\n    mem.seek({address})\n"
           "    print(mem.read({size}).decode(errors='replace'))",
           lambda t, r: SECRET not in r.output),
    Escape("victim_environ", "print(open('/proc/{victim}/environ', 'rb').read().decode(errors='replace'))",
           lambda t, r: SECRET not in r.output),
]


@pytest.fixture
def target(tmp_path: Path):
    victim = subprocess.Popen(["sleep", "60"], env={"PATH": os.defpath, "WEBWISE_TEST_SECRET": SECRET})
    file, directory = tmp_path / "file", tmp_path / "mountpoint"
    file.write_text("x")
    file.chmod(0o644)
    directory.mkdir()
    try:
        yield Target(victim, file, directory, os.getpriority(os.PRIO_PROCESS, victim.pid),
                     os.sched_getaffinity(victim.pid), os.sched_getscheduler(victim.pid))
    finally:
        victim.kill()
        victim.wait()
        if os.path.ismount(directory):  # only when the wall failed: leave no mount behind
            subprocess.run(["umount", "-l", str(directory)], check=False)


@pytest.mark.skipif(not confine.seccomp_supported(), reason="seccomp filter is x86_64 Linux only")
@pytest.mark.parametrize("escape", ESCAPES, ids=lambda e: e.name)
def test_escaped_child_cannot_reach_other_processes_files_or_mounts(escape: Escape, target: Target,
                                                                    escaped: Sandbox):
    if escape.name == "sched_setaffinity" and len(target.affinity) < 2:
        pytest.skip("needs two CPUs to change an affinity")
    code = escape.code.format(**target.placeholders())
    host = ToyHost(SECRET)
    result = escaped.run(code, data={}, functions=["click"], handler=host.handler)

    assert escape.held(target, result), result
    assert not result.ok, result
    assert result.error is not None and "\n" not in result.error
    assert target.victim.poll() is None
    assert _send_raw(escaped, VALID_CALL, ToyHost(SECRET).handler).ok  # the sandbox still works


FOREIGN_HOST = Path(__file__).parent / "attacks" / "foreign_host.py"
NOBODY = 65534
ISOLATION_REFUSED = ("the sandbox cannot isolate programs from other processes: user namespaces are "
                     "unavailable (Operation not permitted)")


def _interpreter_for(identity: dict[str, Any], env: dict[str, str]) -> str | None:
    """An interpreter the user may run (the project's may sit in root's home), or None."""
    for candidate in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        try:
            probe = subprocess.run([candidate, "-c", "import RestrictedPython"], **identity, env=env, cwd="/",
                                   capture_output=True, timeout=60)
        except PermissionError:  # the user may not even execute it
            continue
        if probe.returncode == 0:
            return candidate
    return None


@pytest.mark.skipif(not confine.seccomp_supported(), reason="seccomp filter is x86_64 Linux only")
@pytest.mark.parametrize("as_root, user_namespaces", [(True, False), (False, True), (False, False)],
                         ids=["root_without_user_namespaces", "unprivileged",
                              "unprivileged_without_user_namespaces"])
def test_host_memory_and_environment_stay_unreadable(as_root: bool, user_namespaces: bool):
    """A host of its own whose environment holds the secret, run as root or as an unprivileged
    user (nobody, when the suite runs as root), with user namespaces allowed or refused: the
    escaped child never reads its ``/proc/<pid>/environ`` or ``mem``; where it could (a non-root
    user without user namespaces) the sandbox runs no program at all."""
    root = os.geteuid() == 0
    if as_root and not root:
        pytest.skip("needs root")
    # as root, the unprivileged host runs as nobody; otherwise the suite's own user is one
    identity: dict[str, Any] = {}
    if root and not as_root:
        identity = {"user": NOBODY, "group": NOBODY, "extra_groups": []}
    env = {"WEBWISE_TEST_SECRET": SECRET, "PATH": os.defpath,
           "PYTHONPATH": str(Path(RestrictedPython.__file__).parent.parent)}
    interpreter = _interpreter_for(identity, env)
    if interpreter is None:
        pytest.skip(f"no Python interpreter that {identity} may run")
    options = [] if user_namespaces else ["--refuse-user-namespaces"]
    completed = subprocess.run([interpreter, str(FOREIGN_HOST), *options], **identity, env=env, cwd="/",
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    result = RunResult(**json.loads(completed.stdout.splitlines()[-1]))

    assert SECRET not in result.output and "WEBWISE_TEST_SECRET" not in result.output
    assert not result.ok
    if as_root or user_namespaces:
        assert result.error is not None
        assert result.error.startswith("PermissionError: [Errno 13] Permission denied: '/proc/")
    else:
        assert result.error == ISOLATION_REFUSED
