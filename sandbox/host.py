"""The host side: starts the worker, ships one program per run, answers its action calls.

Everything that arrives from the child is treated as hostile input: messages are size-capped
before they are read, decoded as JSON only, checked field by field, and any breach ends the
program. The handler is the only thing that ever touches the real world, and it only ever sees
an action name from the allowed list and plain-data arguments.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sandbox import protocol
from sandbox.api import ActionReply, Limits, RunResult
from sandbox.policy import one_line

Handler = Callable[[str, list, dict], ActionReply]

_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from sandbox.worker import main; main(int(sys.argv[2]))"
_START_TIMEOUT = 30.0
_GRACE_SECONDS = 5.0  # the worker enforces the wall clock; this only covers a stuck worker
_CONTROL_LIMIT = 1 << 16


class SandboxError(RuntimeError):
    """The worker process could not be started."""


def _valid_name(name: str) -> bool:
    return type(name) is str and all(p.isidentifier() and not p.startswith("_") for p in name.split("."))


def _call_problem(message: dict[str, Any], allowed: set[str]) -> str | None:
    """Why a decoded call must not reach the handler, or None if it may.

    The child checks its arguments before sending, but a child that escaped the policy writes
    any frame it likes, and JSON still carries a name that is not a string (unhashable, so
    ``in allowed`` would raise here), ``1e999`` (infinity) and nesting far deeper than any
    handler expects. So the host re-runs the child's plain-data check on the whole message;
    its size is already bounded by ``Limits.message_bytes``.
    """
    name, args, kwargs = message.get("name"), message.get("args"), message.get("kwargs")
    if type(name) is not str or name not in allowed or type(args) is not list or type(kwargs) is not dict:
        return "malformed action call"
    try:
        protocol.check_plain(message)
    except protocol.NotPlainData as exc:
        return f"malformed action call ({exc})"
    return None if type(message.get("output")) is str else "malformed action call"


@dataclass
class _Run:
    """What the host learned while one program ran."""

    actions: int = 0
    ended: str | None = None          # "stop" or "abort", decided by the host
    child: dict[str, Any] | None = None
    exit: dict[str, Any] | None = None
    breach: str | None = None         # the child broke the protocol
    output: str = ""                  # printed before the last call: kept if no result comes


def _kill_group(process: subprocess.Popen[bytes], control: socket.socket) -> None:
    control.close()
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


class Sandbox:
    """Runs hostile programs in confined children of a warm worker; a context manager."""

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._finalizer: weakref.finalize | None = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def worker_pid(self) -> int | None:
        """The worker's pid (tests use it to look for stray children)."""
        return self._process.pid if self._process else None

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair()
        root = str(Path(__file__).resolve().parent.parent)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT, root, str(theirs.fileno())],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env={}, cwd="/", start_new_session=True,
            )
        finally:
            theirs.close()
        self._process, self._control = process, ours
        self._finalizer = weakref.finalize(self, _kill_group, process, ours)
        ours.settimeout(_START_TIMEOUT)
        try:
            ready = protocol.recv(ours, limit=_CONTROL_LIMIT)
        except (OSError, EOFError, protocol.ProtocolError) as exc:
            self.close()
            raise SandboxError(f"sandbox worker failed to start: {exc}") from None
        ours.settimeout(None)
        if ready.get("op") != "ready":
            self.close()
            raise SandboxError("sandbox worker failed to start")
        return ours

    def close(self) -> None:
        """Stop the worker (and with it any running child)."""
        if self._finalizer is not None:
            self._finalizer()
        self._process = self._control = self._finalizer = None

    def run(self, code: str, *, data: dict[str, Any], functions: Sequence[str],
            handler: Handler) -> RunResult:
        """Run one program to its end, a limit, or an episode stop; never raises for the
        program's doing (a handler's own exception is re-raised after the child is killed)."""
        started = time.monotonic()
        functions = list(functions)
        if not all(_valid_name(n) for n in functions) or not all(_valid_name(k) and "." not in k for k in data):
            raise ValueError("data keys and function names must be public identifiers")
        protocol.check_plain(data)
        request = {"op": "run", "code": code, "data": data, "functions": functions,
                   "limits": asdict(self.limits)}
        ours, theirs = socket.socketpair()
        with ours:
            try:
                control = self._submit(request, theirs)
            finally:
                theirs.close()
            try:
                state = self._serve(control, ours, set(functions), handler, started)
            except BaseException:  # the handler's own error, or Ctrl-C: the child may still run
                self.close()
                raise
        return self._result(state, time.monotonic() - started)

    def _submit(self, request: dict[str, Any], channel: socket.socket) -> socket.socket:
        """Hand the request to the worker, replacing a worker that died since the last run."""
        if self._process is not None and self._process.poll() is not None:
            self.close()
        try:
            control = self._control or self._start()
            protocol.send_with_fd(control, request, channel.fileno())
        except OSError:  # it died between the check and the send: one fresh start
            self.close()
            control = self._start()
            protocol.send_with_fd(control, request, channel.fileno())
        return control

    def _serve(self, control: socket.socket, channel: socket.socket, allowed: set[str],
               handler: Handler, started: float) -> _Run:
        state = _Run()
        deadline = started + self.limits.wall_seconds + _GRACE_SECONDS
        with selectors.DefaultSelector() as selector:
            selector.register(control, selectors.EVENT_READ)
            selector.register(channel, selectors.EVENT_READ)
            while state.exit is None:
                remaining = deadline - time.monotonic()
                events = selector.select(remaining) if remaining > 0 else []
                if not events:
                    self.close()  # the worker itself is stuck: start afresh next time
                    state.exit = {"timeout": True}
                    break
                # The worker's exit report first: no action may run for a program that ended.
                for key, _ in sorted(events, key=lambda e: e[0].fileobj is not control):
                    if key.fileobj is control:
                        self._on_control(control, state)
                    elif state.exit is None and not self._on_channel(channel, state, allowed, handler, deadline):
                        selector.unregister(channel)
            if state.child is None and self._control is not None:
                self._drain(channel, state)
        return state

    def _on_control(self, control: socket.socket, state: _Run) -> None:
        try:
            state.exit = protocol.recv(control, limit=_CONTROL_LIMIT)
        except (OSError, EOFError, protocol.ProtocolError):
            self.close()
            state.exit = {"crashed": True}

    def _kill_child(self, state: _Run, reason: str) -> None:
        """Ask the worker to kill the child now; its exit report then ends the run."""
        state.breach = state.breach or reason
        if self._control is not None:
            try:
                protocol.send(self._control, {"op": "kill"})
            except OSError:
                self.close()

    def _on_channel(self, channel: socket.socket, state: _Run, allowed: set[str],
                    handler: Handler, deadline: float) -> bool:
        """Handle one message from the child; False once the channel is closed."""
        try:
            channel.settimeout(max(0.01, deadline - time.monotonic()))  # no stalling mid-frame
            message = protocol.recv(channel, limit=self.limits.message_bytes)
        except (TimeoutError, protocol.ProtocolError) as exc:
            self._kill_child(state, f"sandbox protocol error: {exc}")
            return False
        except (EOFError, OSError):  # the child is gone; the worker's exit report says how
            return False
        op = message.get("op")
        if op == "result" and state.child is None:
            state.child = message
        elif op == "call" and state.ended is None:
            self._on_call(channel, message, state, allowed, handler)
        else:
            self._kill_child(state, "sandbox protocol error: unexpected message")
            return False
        return True

    def _on_call(self, channel: socket.socket, message: dict[str, Any], state: _Run,
                 allowed: set[str], handler: Handler) -> None:
        problem = _call_problem(message, allowed)
        if problem is not None:
            self._kill_child(state, f"sandbox protocol error: {problem}")
            return
        name, args, kwargs = message["name"], message["args"], message["kwargs"]
        state.output = message["output"]
        if state.actions >= self.limits.max_actions:
            state.ended = "abort"
            reply: dict[str, Any] = {"end": True}
        else:
            state.actions += 1
            answer = handler(name, args, kwargs)
            reply = self._reply(answer)
            if answer.stop:
                state.ended = "stop"
        try:
            protocol.send(channel, reply)
        except OSError:
            pass  # the child is gone; the worker's exit report tells how

    @staticmethod
    def _reply(answer: ActionReply) -> dict[str, Any]:
        if not isinstance(answer, ActionReply):
            raise TypeError(f"handler must return ActionReply, not {type(answer).__name__}")
        if answer.stop:
            return {"end": True}
        if not all(_valid_name(k) and "." not in k for k in answer.rebind):
            raise ValueError("rebind keys must be public identifiers")
        protocol.check_plain(answer.value)  # a type the pipe cannot carry is the handler's bug: raised
        protocol.check_plain(answer.rebind)
        error = None if answer.error is None else one_line(str(answer.error))
        reply = {"value": answer.value, "rebind": answer.rebind, "error": error}
        try:  # the frame as sent, one level deeper: a value the program shaped (its data echoed)
            protocol.check_plain(reply)
        except protocol.NotPlainData as exc:
            return {"value": None, "rebind": {}, "error": f"the action's result cannot go back to the program ({exc})"}
        return reply

    def _drain(self, channel: socket.socket, state: _Run) -> None:
        """The child has exited: pick up its result if it is still in the socket buffer."""
        channel.settimeout(0.5)
        while state.child is None:
            try:
                message = protocol.recv(channel, limit=self.limits.message_bytes)
            except (OSError, EOFError, protocol.ProtocolError):
                return
            if message.get("op") == "result":
                state.child = message

    def _result(self, state: _Run, seconds: float) -> RunResult:
        child = state.child or {}
        output = child.get("output") if state.child is not None else state.output  # killed: what it sent last
        output = output[: self.limits.output_chars + 40] if type(output) is str else ""
        exit_ = state.exit or {}
        limits = self.limits

        def failed(error: str) -> RunResult:
            return RunResult(False, one_line(error), output, state.actions, False, seconds)

        if state.ended == "stop":
            return RunResult(True, None, output, state.actions, True, seconds)
        if state.ended == "abort":
            return failed(f"action limit of {limits.max_actions} reached")
        if state.breach:
            return failed(state.breach)
        cpu = exit_.get("cpu")
        if exit_.get("signal") == signal.SIGXCPU or (type(cpu) is float and cpu >= limits.cpu_seconds):
            # before the child's own word: a program that kept the limit's handler from running
            # (no stack or memory left to call it) ran on past it and then said it ended well
            return failed(limits.cpu_error)
        if state.child is not None and type(child.get("ok")) is bool:
            error = child.get("error")
            if child["ok"]:
                return RunResult(True, None, output, state.actions, False, seconds)
            return failed(error if type(error) is str else "program failed")
        if exit_.get("crashed"):
            return failed("sandbox worker died")
        if exit_.get("timeout"):
            return failed(f"TimeoutError: program exceeded {limits.wall_seconds:g} s wall time")
        if exit_.get("code") == protocol.CHANNEL_BROKEN:
            return failed("the program's channel to the host broke")
        if exit_.get("code") == protocol.RESULT_UNSENT:
            return failed("the program ended but could not send its result to the host")
        sig = exit_.get("signal")
        if type(sig) is int:
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            return failed(f"program was killed by {name}")
        return failed(f"program exited with status {exit_.get('code')} before reporting a result")
