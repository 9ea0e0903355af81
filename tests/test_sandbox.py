"""The sandbox with ordinary programs: what generated code needs must work, limits must hold,
errors must be one line, and the host must survive whatever the child does."""

from __future__ import annotations

import os
import signal
import socket
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sandbox import ActionReply, Limits, RunResult, Sandbox, check
from sandbox import confine, protocol

OBSERVATION = [
    {"ref": 1, "tag": "button", "text": "OK", "id": "ok", "classes": "", "value": ""},
    {"ref": 2, "tag": "input_text", "text": "", "id": "name", "classes": "", "value": ""},
]
FUNCTIONS = ["click", "enter_text", "press_key", "scroll", "click_action1", "enter_text_action",
             "scroll_action1", "env.step"]


class Recorder:
    """A fake host: records calls, answers like webwise's executor would."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list, dict]] = []
        self.page = 0

    def __call__(self, name: str, args: list, kwargs: dict) -> ActionReply:
        self.calls.append((name, args, kwargs))
        if name.endswith("_action1") or name == "enter_text_action":
            return ActionReply(value=[name.removesuffix("1").removesuffix("_action"), *args[:-1]])
        if name == "click" and args[1] == "Finish":
            return ActionReply(stop=True)
        if name == "click" and args[1] == "Missing":
            return ActionReply(error="click: no button matches 'Missing'\n(closest: 'OK')")
        self.page += 1
        observation = [{"ref": 10 + self.page, "tag": "div", "text": f"page {self.page}"}]
        if name == "env.step":
            return ActionReply(value=[observation, 1.0 * self.page, False, False, {}],
                               rebind={"observation": observation})
        return ActionReply(value=observation, rebind={"observation": observation})


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(wall_seconds=5, cpu_seconds=2, memory_mb=256, output_chars=200)) as sandbox:
        yield sandbox


def run(box: Sandbox, code: str, handler: Any = None, **data: Any) -> RunResult:
    data = {"task": "Click OK.", "observation": OBSERVATION, **data}
    return box.run(code, data=data, functions=FUNCTIONS, handler=handler or Recorder())


def test_ordinary_program_runs_and_prints(box: Sandbox):
    code = (
        "buttons = [el for el in observation if el['tag'] == 'button']\n"
        "for i, el in enumerate(sorted(buttons, key=lambda e: e['ref'])):\n"
        "    print(f\"{i}: {el['text']!r} {len(task):>3}\", '{} of {}'.format(i + 1, len(buttons)))\n"
        "print(max(1, 2), min([3, 4]), sum(x * x for x in range(4)), abs(-2), round(2.567, 1))\n"
        "print(list(zip('ab', reversed([1, 2]))), any([]), all([]), isinstance(task, str))\n"
    )
    result = run(box, code)
    assert result == RunResult(True, None, "0: 'OK'   9 1 of 1\n2 3 14 2 2.6\n[('a', 2), ('b', 1)] False True True\n",
                               0, False, result.seconds)


def test_augmented_assignment_on_names_items_and_attributes(box: Sandbox):
    code = (
        "counts = {}\nfor w in 'a b a'.split():\n    counts[w] = counts.get(w, 0)\n    counts[w] += 1\n"
        "xs = [1, 2]\nxs[0] += 10\nxs += [3]\nn = 0\nn += 1\n"
        "class Box:\n    def __init__(self):\n        self.total = 0\n    def add(self, v):\n"
        "        self.total += v\nb = Box()\nb.add(5)\nprint(counts, xs, n, b.total)\n"
    )
    assert run(box, code).output == "{'a': 2, 'b': 1} [11, 2, 3] 1 5\n"


def test_allowed_modules_work_as_proxies(box: Sandbox):
    code = (
        "import re, math, json, string, itertools\nimport datetime as dt\n"
        "from collections import Counter, defaultdict, OrderedDict, deque\n"
        "print(re.findall(r'\\d+', 'a12b3'), math.floor(math.sqrt(10)), json.loads(json.dumps({'k': [1]})))\n"
        "d = dt.datetime.strptime('03/14/2016', '%m/%d/%Y') + dt.timedelta(days=20)\n"
        "print(d.strftime('%m/%d/%Y'), dt.date(2016, 3, 14).weekday(), string.digits[:3])\n"
        "dd = defaultdict(list)\ndd['x'].append(1)\nc = Counter('abca')\nc['a'] += 1\n"
        "q = deque([1])\nq.appendleft(0)\nprint(c.most_common(1), dict(dd), list(OrderedDict(a=1)), list(q),\n"
        "      list(itertools.islice(itertools.count(), 3)))\n"
    )
    assert run(box, code).output == ("['12', '3'] 3 {'k': [1]}\n04/03/2016 0 012\n"
                                      "[('a', 3)] {'x': [1]} ['a'] [0, 1] [0, 1, 2]\n")


def test_the_allowed_modules_need_no_import(box: Sandbox):
    """The prompt lists re, math and the rest as there to use, and small models use them so:
    the 0.5B wrote ``re.search(...)`` with no import in 8 programs of one bench, each a NameError.
    An import still gives the same namespace, and nothing else arrives unimported."""
    code = ("print(re.findall(r'\\d+', 'a12b3'), math.floor(2.5), string.digits[:2])\n"
            "import re as again\nprint(again is re)\nprint(os)\n")
    result = run(box, code)
    assert result.output == "['12', '3'] 2 01\nTrue\n"
    assert "NameError" in result.error and "'os'" in result.error


def test_action_rebinds_observation_everywhere_and_returns_value(box: Sandbox):
    handler = Recorder()
    code = (
        "def first_text():\n    return observation[0]['text']\n"
        "before = first_text()\nnew = click('button', 'OK')\n"
        "print(before, first_text(), new[0]['text'])\nenter_text(text='Bob\\n')\n"
    )
    result = run(box, code, handler)
    assert result.ok and result.actions == 2
    assert result.output == "OK page 1 page 1\n"
    assert handler.calls == [("click", ["button", "OK"], {}), ("enter_text", [], {"text": "Bob\n"})]


def test_paper_spellings_with_env_step_unpacking(box: Sandbox):
    code = (
        "action = click_action1('button', 'OK', observation)\n"
        "observation, reward, terminated, truncated, info = env.step(action)\n"
        "print(action, reward, terminated, observation[0]['text'])\n"
    )
    result = run(box, code)
    assert result.ok, result
    assert result.output == "['click', 'button', 'OK'] 1.0 False page 1\n"


def test_stop_ends_the_program_at_once(box: Sandbox):
    code = "print('before')\ntry:\n    click('button', 'Finish')\nfinally:\n    print('finally')\nprint('after')\n"
    result = run(box, code)
    assert (result.ok, result.stopped, result.error, result.output, result.actions) == (True, True, None, "before\n", 1)


def test_handler_error_is_one_line_and_catchable(box: Sandbox):
    uncaught = run(box, "click('button', 'Missing')")
    assert uncaught.error == "ActionError: click: no button matches 'Missing' (closest: 'OK')"
    caught = run(box, "try:\n    click('button', 'Missing')\nexcept ActionError as e:\n    print('caught')\n")
    assert caught.ok and caught.output == "caught\n"


def test_a_reply_too_deep_to_send_back_is_the_program_s_error_not_the_host_s(box: Sandbox):
    """A handler that echoes a program's data nests it one level deeper than the program sent it."""
    def echo(name: str, args: list, kwargs: dict) -> ActionReply:
        return ActionReply(value={"echo": args})

    deep = "deep = 'x'\nfor _ in range(30):\n    deep = [deep]\n"
    result = run(box, deep + "click(deep, 'x')", echo)
    assert not result.ok and "the action's result cannot go back to the program" in result.error
    assert run(box, "print('still serving')").output == "still serving\n"


def test_an_exception_s_message_runs_none_of_the_program_s_code(box: Sandbox):
    """Its message is built after the program ended; str() of a program's object in its arguments
    would run the program's methods then (a Counter's repr calls its most_common)."""
    recorder = Recorder()
    code = ("import collections\n"
            "class Out(BaseException):\n    pass\n"
            "class Counts(collections.Counter):\n"
            "    def most_common(self, n=None):\n"
            "        click('button', 'after the end')\n"
            "        raise Out()\n"
            "print('kept')\n"
            "raise ValueError(Counts('a'))\n")
    result = run(box, code, recorder)
    assert (result.error, result.output) == ("ValueError", "kept\n")
    assert recorder.calls == []
    lying = ("class Lying(Exception):\n"
             "    args = property(lambda self: click('button', 'after the end') or ('x',))\n"
             "raise Lying('plain')\n")
    assert run(box, lying, recorder).error == "Lying: plain" and recorder.calls == []


ONLY_MODULES = "the modules are re, math, json, datetime, string, itertools, collections"


@pytest.mark.parametrize("code, error", [
    ("x = foo", "NameError: name 'foo' is not defined"),
    ("1 / 0", "ZeroDivisionError: division by zero"),
    ("import os", f"ImportError: import of 'os' is not allowed; {ONLY_MODULES}"),
    ("import collections.abc", f"ImportError: import of 'collections.abc' is not allowed; {ONLY_MODULES}"),
    ("import time\ntime.sleep(1)", "ImportError: import of 'time' is not allowed; to pause, call wait(seconds)"),
    ("def f(:\n  pass", "SyntaxError: invalid syntax (line 1)"),
    ("x = observation.__class__", 'PolicyError: "__class__" is an invalid attribute name because it starts with "_". (line 1)'),
    ("raise ValueError('a\\nb')", "ValueError: a b"),
    ("b'\\xff'.decode()", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    ("{}[('a', 1)]", "KeyError: ('a', 1)"),
    ("{}[(1, (2, 3))]", "KeyError: (1, (2, 3))"),  # plain data nested: still shown
    ("{}[datetime.date(2020, 1, 2)]", "KeyError: datetime.date(2020, 1, 2)"),
    ("raise ValueError(['need', {'a': 1}])", "ValueError: ['need', {'a': 1}]"),
    ("x = []\nx.append(x)\nraise ValueError(x)", "ValueError"),  # a cycle is not looked at forever
    ("click('button', lambda: 1)", "TypeError: click() arguments must be plain data (value of type function)"),
    ("click('button', {1: 'x'})", "TypeError: click() arguments must be plain data (dict key of type int)"),
    ("click('button', float('nan'))", "TypeError: click() arguments must be plain data (non-finite float)"),
    ("'{0.real}'.format(1)", "ValueError: format field '{0.real}' is not allowed: use simple fields"),
])
def test_errors_are_one_line(box: Sandbox, code: str, error: str):
    result = run(box, code)
    assert (result.ok, result.error) == (False, error)


def test_check_compiles_without_running():
    assert check("import re\nprint(re.findall('\\d', 'a1'))\nx = 1 is 1") is None  # warnings are not errors
    assert check("print(") == "SyntaxError: '(' was never closed (line 1)"
    assert check("__import__('os')").startswith("PolicyError: ")
    assert check("x = " + "(" * 300 + ")" * 300).startswith("SyntaxError: ")
    assert check("a\0b").startswith("SyntaxError: ")
    assert check("x = " + "not " * 200_000 + "a") == "SyntaxError: program cannot be compiled (it is nested too deeply)"


def test_program_cannot_change_host_data(box: Sandbox):
    data = [{"ref": 1, "text": "OK"}]
    result = run(box, "observation[0]['text'] = 'hacked'\nobservation.append(1)\ntask = 'x'", observation=data)
    assert result.ok and data == [{"ref": 1, "text": "OK"}]


def test_action_budget(box: Sandbox):
    handler = Recorder()
    result = run(box, "for i in range(100):\n    scroll(str(i))\nprint('never')", handler)
    assert (result.ok, result.error, result.actions, len(handler.calls)) == (False, "action limit of 50 reached", 50, 50)


def test_output_is_capped(box: Sandbox):
    result = run(box, "for i in range(1000):\n    print('line', i)")
    assert result.ok and result.output.endswith("[output truncated]")
    assert len(result.output) <= 200 + len("\n[output truncated]")


def test_cpu_limit_keeps_what_the_program_printed():
    """A runaway loop is how a model's program most often ends; its prints say how far it got."""
    with Sandbox(Limits(wall_seconds=30, cpu_seconds=1)) as sandbox:  # wall is slack on a busy machine
        result = sandbox.run("print('looking')\nwhile True:\n    pass", data={}, functions=[], handler=Recorder())
    assert (result.error, result.output) == ("TimeoutError: program exceeded 1 s CPU time", "looking\n")


@pytest.mark.parametrize("code, error", [
    ("x = 'a' * (10 ** 10)", "MemoryError: program exceeded 256 MiB of memory"),
    ("def f():\n    return f()\nf()", "RecursionError: maximum recursion depth exceeded"),
])
def test_resource_limits(box: Sandbox, code: str, error: str):
    assert run(box, code).error == error
    assert run(box, "print('fine')").output == "fine\n"


@pytest.mark.parametrize("code, error", [
    ("keep = []\nwhile True:\n    keep.append([0])", "MemoryError: program exceeded 256 MiB of memory"),
    ("keep = []\ntry:\n    while True:\n        keep.append([0])\nexcept MemoryError:\n    pass", None),
])
def test_a_program_that_fills_memory_with_small_objects_still_reports_how_it_ended(code: str, error: str | None):
    """Such a program leaves no memory to describe its error or send its result with: the
    child died with status 70 (or 0), and the error said only that it exited early."""
    with Sandbox(Limits(wall_seconds=30, cpu_seconds=10, memory_mb=256)) as sandbox:  # filling takes CPU
        result = sandbox.run(code, data={}, functions=[], handler=Recorder())
        assert (result.ok, result.error) == (error is None, error)
        assert sandbox.run("print('fine')", data={}, functions=[], handler=Recorder()).output == "fine\n"


@pytest.mark.parametrize("code, error", [
    ("raise ValueError('ab ' * 8_000_000)", "ValueError: ab ab ab"),
    ("raise KeyError('k' * (90 << 20))", "KeyError"),
])
def test_an_exception_with_a_huge_message_still_reports_the_output_and_the_error(box: Sandbox, code: str,
                                                                                 error: str):
    """Collapsing the whitespace of a 24 MB message made a string per word and ran out of
    memory after the program ended: the child exited without a result, output and error lost."""
    result = run(box, "print('kept')\nclick('button', 'OK')\n" + code)
    assert (result.ok, result.output, result.actions) == (False, "kept\n", 1), result
    assert result.error.startswith(error) and "\n" not in result.error and len(result.error) <= 300, result


def test_a_result_the_child_cannot_send_is_reported_as_such():
    """The host stops reading as it replies, so the program's result cannot be sent.

    It stops before the reply leaves: stopping after it raced the child, whose result could
    be in the host's buffer before the shutdown.
    """
    send = protocol.send

    def stop_reading_then_send(sock: socket.socket, message: dict[str, Any], *, limit: int | None = None) -> None:
        if "op" not in message:
            sock.shutdown(socket.SHUT_RD)
        send(sock, message, limit=limit)

    with Sandbox(Limits(wall_seconds=5)) as sandbox:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(protocol, "send", stop_reading_then_send)
            result = sandbox.run("click('a', 'b')", data={}, functions=["click"], handler=Recorder())
        assert (result.ok, result.error) == (False, "the program ended but could not send its result to the host")
        assert result.seconds < 2.5


def test_wall_clock_kill_and_recovery():
    def slow(name: str, args: list, kwargs: dict) -> ActionReply:
        import time
        time.sleep(0.3)
        return ActionReply()

    with Sandbox(Limits(wall_seconds=0.5)) as sandbox:
        result = sandbox.run("n = 0\nwhile True:\n    n += 1\n    print('click', n)\n    click('a', 'b')",
                             data={}, functions=["click"], handler=slow)
        assert result.error == "TimeoutError: program exceeded 0.5 s wall time"
        assert result.output.startswith("click 1\nclick 2\n")  # printed before the kill, sent with each call
        assert 0.5 <= result.seconds < 3
        assert sandbox.run("print(1)", data={}, functions=[], handler=slow).output == "1\n"


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_child_killed_mid_action_gives_one_line_error(box: Sandbox):
    def killer(name: str, args: list, kwargs: dict) -> ActionReply:
        assert box.worker_pid is not None
        for pid in _children(box.worker_pid):
            os.kill(pid, signal.SIGSEGV)
        return ActionReply()

    result = run(box, "click('a', 'b')\nclick('a', 'b')", killer)
    assert (result.ok, result.error) == (False, "program was killed by SIGSEGV")
    assert run(box, "print('alive')").output == "alive\n"


Breaker = Callable[[socket.socket], None]

CHANNEL_BROKE = "the program's channel to the host broke"
SWALLOWS_AND_RUNS_ON = (
    "try:\n    click('button', 'OK')\nexcept BaseException:\n    print('caught')\n"
    "while True:\n    pass\n"
)
BROKEN_REPLIES: dict[str, Breaker | None] = {
    "too_big_to_hold": None,  # a real reply: the handler answers with more than the child's memory
    "not_json": lambda sock: sock.sendall(struct.pack(">I", 5) + b"{nope"),
    "missing_fields": lambda sock: sock.sendall(protocol.encode({"value": 1})),
    "closed": lambda sock: sock.shutdown(socket.SHUT_WR),
}


def _break_replies(patch: pytest.MonkeyPatch, breaker: Breaker) -> None:
    """Have the host send ``breaker``'s bytes instead of every action reply, as a garbled channel
    would; its requests to the worker pass unchanged."""
    send = protocol.send

    def send_broken(sock: socket.socket, message: dict[str, Any], *, limit: int | None = None) -> None:
        if "op" in message:
            send(sock, message, limit=limit)
        else:
            breaker(sock)

    patch.setattr(protocol, "send", send_broken)


@pytest.mark.parametrize("reply", BROKEN_REPLIES)
def test_unreadable_reply_ends_the_child_at_once(reply: str):
    """A reply the child cannot read must end it like ``stop``: raised into the program, the
    error would be swallowed by ``except BaseException`` and the child would run on to a limit
    (the CPU's: the wall limit is long, so sending 64 MB on a busy machine never reaches it)."""
    limits = Limits(wall_seconds=30, cpu_seconds=3, memory_mb=64)
    calls: list[str] = []

    def handler(name: str, args: list, kwargs: dict) -> ActionReply:
        calls.append(name)
        return ActionReply(value="x" * (limits.memory_mb << 20) if reply == "too_big_to_hold" else None)

    with Sandbox(limits) as sandbox:
        with pytest.MonkeyPatch.context() as patch:
            breaker = BROKEN_REPLIES[reply]
            if breaker is not None:
                _break_replies(patch, breaker)
            result = sandbox.run(SWALLOWS_AND_RUNS_ON, data={}, functions=["click"], handler=handler)
        assert (result.ok, result.error, result.output) == (False, CHANNEL_BROKE, "")
        assert result.seconds < limits.wall_seconds / 2 and calls == ["click"]
        assert sandbox.run("print('fine')", data={}, functions=[], handler=handler).output == "fine\n"


def test_action_without_stack_left_is_a_recursion_error(box: Sandbox):
    """Near the recursion limit a call fails before it is sent, as a RecursionError the program
    may catch; only a reply the child cannot read, not its own deep recursion, ends it."""
    code = (
        "calls = []\n"
        "def dive(depth):\n"
        "    try:\n        dive(depth + 1)\n    except RecursionError:\n        pass\n"
        "    if not calls:\n"
        "        try:\n            calls.append(click('button', 'OK'))\n"
        "        except RecursionError:\n            pass\n"
        "dive(0)\nprint(len(calls))\n"
    )
    result = run(box, code)
    assert (result.ok, result.error, result.output, result.actions) == (True, None, "1\n", 1)


def test_dead_worker_is_replaced(box: Sandbox):
    assert box.worker_pid is not None
    os.kill(box.worker_pid, signal.SIGKILL)
    first = run(box, "print(1)")  # races with the kill: either ran on a fresh worker or failed
    assert first.ok or (first.error is not None and "\n" not in first.error)
    assert run(box, "print(2)").output == "2\n"


def test_handler_exception_propagates_and_sandbox_recovers(box: Sandbox):
    def broken(name: str, args: list, kwargs: dict) -> ActionReply:
        raise RuntimeError("host bug")

    with pytest.raises(RuntimeError, match="host bug"):
        run(box, "click('a', 'b')", broken)
    assert run(box, "print('again')").output == "again\n"


def test_invalid_host_input_is_rejected(box: Sandbox):
    with pytest.raises(ValueError):
        box.run("pass", data={"_secret": 1}, functions=[], handler=Recorder())
    with pytest.raises(ValueError):
        box.run("pass", data={}, functions=["__import__"], handler=Recorder())
    with pytest.raises(TypeError):
        box.run("pass", data={"f": print}, functions=[], handler=Recorder())


def test_plain_data_means_exact_builtin_types():
    class Text(str):
        pass

    protocol.check_plain({"a": [1, 2.5, None, True, ("x",)]})
    for bad in (Text("x"), {"k": Text("v")}, {Text("k"): 1}, float("inf"), b"x", {1, 2}, print):
        with pytest.raises(protocol.NotPlainData):
            protocol.check_plain(bad)
    deep: list[Any] = []
    for _ in range(protocol.MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(protocol.NotPlainData):
        protocol.check_plain(deep)


@pytest.mark.parametrize("frame", [
    struct.pack(">I", 1 << 30),                  # a huge announced size: refused before reading
    struct.pack(">I", 5) + b"{nope",             # not JSON
    struct.pack(">I", 3) + b"NaN",               # JSON, but not plain data
    struct.pack(">I", 2) + b"[]",                # not an object
    struct.pack(">I", 2) + b"\xff\xfe",          # not UTF-8
])
def test_protocol_rejects_garbage(frame: bytes):
    a, b = socket.socketpair()
    with a, b:
        a.sendall(frame)
        with pytest.raises(protocol.ProtocolError):
            protocol.recv(b, limit=1 << 20)


@pytest.mark.skipif(not confine.seccomp_supported(), reason="seccomp filter is x86_64 Linux only")
def test_confinement_holds_without_the_policy(tmp_path: Path):
    """Plain Python in a confined fork (as if the policy had been bypassed) still cannot write
    files, start processes, open sockets or signal the host."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(read_end)
            confine.apply_rlimits(Limits(memory_mb=256), write_end)
            confine.install_seccomp()
            outcomes = []
            for attempt in (
                lambda: open(tmp_path / "file", "w"),
                lambda: os.system(f"touch {tmp_path / 'spawned'}"),
                lambda: os.fork(),
                lambda: socket.socket(),
                lambda: os.kill(os.getppid(), 0),
                lambda: os.mkdir(tmp_path / "dir"),
            ):
                try:
                    outcomes.append("allowed" if attempt() in (None, 0) else "failed")
                except OSError:
                    outcomes.append("denied")
            os.write(write_end, ",".join(outcomes).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as reader:
        outcomes = reader.read().split(",")
    os.waitpid(pid, 0)
    assert outcomes == ["denied", "failed", "denied", "denied", "denied", "denied"]
    assert list(tmp_path.iterdir()) == []
