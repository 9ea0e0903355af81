"""The worker: a warm fork server whose children each run one confined program.

The host starts this once (``python -I``, empty environment, no terminal). It imports and warms
everything up, then forks one child per program: the child inherits a ready interpreter (a few
milliseconds instead of a fresh start-up) yet starts from a clean copy each time, so nothing a
program does survives into the next one. The worker itself never runs program code; it only
forks, enforces the wall clock through a pidfd (no pid-reuse race) and reports how the child
ended. The child talks to the host over its own socket, passed in with each request.
"""

from __future__ import annotations

import collections
import datetime
import gc
import os
import select
import signal
import socket
import sys
from typing import Any, Iterable, NoReturn

from sandbox import confine, guards, policy, protocol
from sandbox.api import Limits

CHANNEL_FD = 3
_OUR_FRAMES = 20  # stack depth below the program, added to its recursion limit
# Stack an action's round trip needs: a reply's nesting, plus our own calls (10 are enough on
# CPython 3.11 for the deepest reply the host sends; 16 leave room).
_ROUND_TRIP_FRAMES = protocol.MAX_DEPTH + 16
# Memory held back from the program and given back when it ends: describing and sending how
# it ended needs some, and a program that filled memory with small objects left none (the
# child then died before reporting). Dropping the program's objects instead would run its
# generators' ``finally`` blocks after the end.
_RESERVE_BYTES = 1 << 20


class _CpuAlarm:
    """Whether the soft CPU limit's signal has come, whether or not its handler ran.

    The handler (:meth:`_Program.out_of_cpu`) is Python, called on the program's own stack and
    heap: a program spinning at the recursion limit, or with memory full, makes that call fail,
    catches the RecursionError or MemoryError, and runs on. The C-level handler that comes first
    always writes the signal's number to the wakeup pipe, which the child reads before each
    action call and before it reports. (The CPU time itself cannot tell: the kernel's count that
    sends the signal ran up to 3 ms ahead of the process's clock and of its final usage.)
    Made before the limits, since the pipe takes two descriptors.
    """

    def __init__(self) -> None:
        self._read, write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        self.highest_fd = max(self._read, write)
        self._rang = False

    def rang(self) -> bool:
        try:
            self._rang = self._rang or signal.SIGXCPU in os.read(self._read, 64)
        except BlockingIOError:
            pass
        return self._rang


class _Program:
    """The child side of one run: the program's namespace and its link to the host."""

    def __init__(self, channel: socket.socket, limits: Limits, alarm: _CpuAlarm) -> None:
        self.channel = channel
        self.limits = limits
        self.alarm = alarm
        self.printer = guards.Printer(limits.output_chars)
        self.globals = guards.namespace(self.printer)
        self.reserve: bytearray | None = bytearray(_RESERVE_BYTES)

    def finish(self, ok: bool, error: str | None) -> NoReturn:
        """Report and leave at once: after ``stop`` nothing of the program may run, not even
        its ``finally`` blocks."""
        _stop_finalizers()
        self.reserve = None
        if self.alarm.rang():  # whatever the program raised or did since: it ran out of CPU time
            ok, error = False, self.limits.cpu_error
        try:
            protocol.send(self.channel, {"op": "result", "ok": ok, "error": error,
                                         "output": self.printer()})
        except BaseException:
            os._exit(protocol.RESULT_UNSENT)
        os._exit(0)

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Forward one action to the host as plain data and apply its reply.

        A program past its CPU time acts no more, even one that kept the limit's handler from
        running (:class:`_CpuAlarm`): it ends here instead.
        """
        try:
            message = protocol.encode({"op": "call", "name": name, "args": list(args), "kwargs": kwargs,
                                       "output": self.printer()}, limit=self.limits.message_bytes)
        except protocol.NotPlainData as exc:
            raise TypeError(f"{name}() arguments must be plain data ({exc})") from None
        except protocol.ProtocolError as exc:
            raise ValueError(f"{name}() arguments are too large ({exc})") from None
        _reserve_stack(_ROUND_TRIP_FRAMES)
        _stop_finalizers()  # the reply may end the program
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGXCPU})  # no result frame inside a call's
        if self.alarm.rang():  # it came before the block, and its handler was kept from running
            self.out_of_cpu(signal.SIGXCPU, None)
        reply = self.exchange(message)
        if reply.get("end"):  # before anything that allocates: a MemoryError here ran the program on
            self.finish(True, None)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGXCPU})
        gc.enable()  # the program runs on, and so may its finalizers
        self.globals.update(reply["rebind"])
        if reply["error"] is not None:
            raise guards.ActionError(reply["error"])
        return reply["value"]

    def exchange(self, message: bytes) -> dict[str, Any]:
        """Send one call and return the host's well-formed reply, or end the child at once.

        Any failure here (a call not fully sent, a reply that cannot be read, decoded or even
        held in memory) leaves the channel out of step with the host, which may already have
        ended the episode. Raised into the program, it could be caught and the program would
        run on to the wall clock; so, like ``stop``, it ends the child before any ``except`` or
        ``finally`` of the program can run, with a status the host reports as a broken channel.
        """
        try:
            self.channel.sendall(message)
            reply = protocol.recv(self.channel)
            if _well_formed(reply):
                return reply
        except BaseException:
            pass
        os._exit(protocol.CHANNEL_BROKEN)

    def out_of_cpu(self, signum: int, frame: object) -> NoReturn:
        """The soft CPU limit's signal: report, with the output so far, before the hard limit
        kills the child a second later (its default action would end it with nothing said)."""
        self.finish(False, self.limits.cpu_error)

    def action(self, name: str) -> Any:
        def action(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, args, kwargs)

        action.__name__ = action.__qualname__ = name.rsplit(".", 1)[-1]
        return action

    def run(self, code: str, data: dict[str, Any], functions: list[str]) -> NoReturn:
        try:
            compiled = policy.compile_program(code)
        except policy.ProgramError as exc:
            self.finish(False, str(exc))
        self.globals.update(data)
        self.globals.update(guards.expose(functions, self.action))
        sys.setrecursionlimit(self.limits.recursion_limit + _OUR_FRAMES)
        signal.signal(signal.SIGXCPU, self.out_of_cpu)
        try:
            exec(compiled, self.globals)
        except BaseException as exc:  # the program's own failure, whatever it raised
            _stop_finalizers()
            self.reserve = None
            self.finish(False, _described(exc, self.limits))
        self.finish(True, None)


def _stop_finalizers() -> None:
    """Let none of the program's code run by itself from here on (until ``gc.enable()``).

    The cyclic collector runs whenever enough objects were allocated, and freeing a
    suspended generator that sits in a reference cycle runs its ``finally`` block: a program
    that makes such a cycle and pads its allocations to the right count had that block run
    after the host answered ``stop`` (and spin there until the wall clock); describing and
    reporting how a program ended allocate too. With the collector off, the program's code
    runs only where the program calls it.
    """
    gc.disable()


def _reserve_stack(frames: int) -> None:
    """Raise RecursionError unless ``frames`` more calls fit on the stack.

    Called before a call is sent, so a program that recursed to its limit gets an ordinary
    RecursionError with the channel intact, instead of a reply it has no stack left to decode
    (which would end the child as a broken channel).
    """
    if frames > 0:
        _reserve_stack(frames - 1)


def _well_formed(reply: dict[str, Any]) -> bool:
    """Everything ``_Program.call`` reads from a reply is there, so reading it cannot raise."""
    if reply.get("end") is True:
        return True
    error = reply.get("error", False)
    return "value" in reply and type(reply.get("rebind")) is dict and (error is None or type(error) is str)


def _described(exc: BaseException, limits: Limits) -> str:
    """:func:`describe`, or the class's name alone when even describing runs out of memory.

    An exception's message can be as large as the memory limit allows (a ``KeyError`` of a
    100 MiB key is copied again by its ``repr``); the run's output and the fact that it failed
    must still reach the host.
    """
    try:
        return describe(exc, limits)
    except BaseException:
        return f"{type(exc).__name__} (its message was too large to report)"


#: The characters of an exception's message that are read: the error line keeps far fewer
#: (:func:`policy.one_line`), and collapsing the whitespace of a huge message made one
#: string per word.
_MESSAGE_READ = 4096


def describe(exc: BaseException, limits: Limits) -> str:
    if isinstance(exc, MemoryError):
        return f"MemoryError: program exceeded {limits.memory_mb} MiB of memory"
    if isinstance(exc, RecursionError):
        return "RecursionError: maximum recursion depth exceeded"
    name = type(exc).__name__
    text = _message(exc)[:_MESSAGE_READ]
    return policy.one_line(f"{name}: {text}" if text else name)


#: Values an exception's message may be built from: ``str()`` and ``repr()`` of them run no
#: program code (exact types only: a subclass may define its own ``__repr__``).
_PLAIN_ARGS = frozenset({str, bytes, int, float, bool, type(None), datetime.date, datetime.datetime,
                         datetime.time, datetime.timedelta})
#: Containers of plain values a message may show (a tuple key, a list of names), and how many
#: values in all are looked at before a message counts as too large to build.
_PLAIN_CONTAINERS = frozenset({tuple, list, frozenset, set, dict})
_PLAIN_VALUES = 1000


def _plain(values: Iterable[Any]) -> bool:
    """Whether ``values`` and everything in them are plain, looking at no more than
    :data:`_PLAIN_VALUES` of them (breadth first, so nesting costs no stack)."""
    queue, seen = collections.deque(values), 0
    while queue:
        value, seen = queue.popleft(), seen + 1
        if seen > _PLAIN_VALUES:
            return False
        kind = type(value)
        if kind in _PLAIN_CONTAINERS:
            queue.extend(dict.items(value) if kind is dict else value)
        elif kind not in _PLAIN_ARGS:
            return False
    return True


def _message(exc: BaseException) -> str:
    """The exception's message, built without running any of the program's code, which would
    run after the program has ended: the arguments are read from the built-in slot (a class of
    the program's may define ``args`` as a property) and must be plain values, and the text is
    made by the nearest built-in class's ``__str__``, not one the program's class inherits."""
    args = BaseException.args.__get__(exc)
    if not _plain(args):
        return ""
    builtin = next(kind for kind in type(exc).__mro__ if kind.__module__ == "builtins")
    try:
        return builtin.__str__(exc)
    except Exception:  # a built-in's fields set to what its __str__ cannot format
        return ""


def _child(request: dict[str, Any], fd: int) -> NoReturn:
    """Confine this fresh fork, then run the program; never returns."""
    try:
        if fd != CHANNEL_FD:
            os.dup2(fd, CHANNEL_FD)
        os.closerange(CHANNEL_FD + 1, 1 << 16)  # the worker's control socket, pidfds, anything
        channel = socket.socket(fileno=CHANNEL_FD)
        limits = Limits(**request["limits"])
        alarm = _CpuAlarm()
        confine.apply_rlimits(limits, alarm.highest_fd)
        try:
            confine.isolate_from_other_processes()
        except confine.IsolationError as exc:  # no program runs unisolated: say why, once per run
            _Program(channel, limits, alarm).finish(False, exc.strerror)
        if confine.seccomp_supported():
            confine.install_seccomp()
        _Program(channel, limits, alarm).run(request["code"], request["data"], request["functions"])
    finally:
        os._exit(70)  # only reached if setting up failed; the host reports the exit status


def _supervise(control: socket.socket, pid: int, wall_seconds: float) -> dict[str, Any]:
    """Wait for the child, killing it at the wall-clock limit or when the host asks."""
    pidfd = os.pidfd_open(pid)
    timed_out = False
    try:
        ready, _, _ = select.select([pidfd, control], [], [], wall_seconds)
        if not ready:
            timed_out = True
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        elif pidfd not in ready:  # the host asked to kill (or went away)
            try:
                protocol.recv(control)
            except EOFError:
                pass
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
    finally:
        os.close(pidfd)
    return {
        "op": "exit",
        "timeout": timed_out,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "cpu": usage.ru_utime + usage.ru_stime,
    }


def _warm_up() -> None:
    """Pay for lazy imports and caches once, here, rather than in every child."""
    import datetime
    import json
    import re
    import time  # noqa: F401  (C code in datetime imports it at call time; see guarded_import)

    moment = datetime.datetime.strptime("03/14/2016 9:37 PM", "%m/%d/%Y %I:%M %p")
    moment.strftime("%c")
    json.loads(json.dumps({"a": [1.5, None]}))
    re.compile(r"\d+").findall("a1b22")
    policy.compile_program(
        "import re\nclass A:\n    def f(self, x):\n        self.n = x\n"
        "d = {}\nd['k'] = 1\nd['k'] += 1\nfor i, c in enumerate('ab'):\n    print(i, c)\n"
    )
    gc.collect()
    gc.freeze()  # keep the warm heap out of the children's collections: fewer copied pages


def main(control_fd: int) -> None:
    control = socket.socket(fileno=control_fd)
    _warm_up()
    protocol.send(control, {"op": "ready"})
    while True:
        try:
            request, fd = protocol.recv_with_fd(control)
        except (EOFError, ConnectionError):
            return
        if fd is None:  # a kill request that arrived after its child had already ended
            continue
        pid = os.fork()
        if pid == 0:
            _child(request, fd)
        os.close(fd)
        protocol.send(control, _supervise(control, pid, float(request["limits"]["wall_seconds"])))
