"""The data types the host and the sandbox exchange: limits, one action's reply, one run's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Limits:
    """Per-program budgets. Every one of them is enforced outside the program's reach."""

    wall_seconds: float = 10.0      # wall-clock kill per program (includes time spent in handlers)
    cpu_seconds: float = 10.0       # RLIMIT_CPU of the child, rounded up to whole seconds
    max_actions: int = 50           # action calls per program
    memory_mb: int = 512            # RLIMIT_AS of the child
    output_chars: int = 4000        # captured print() output cap
    recursion_limit: int = 250      # low enough that deep recursion fails before the C stack does
    open_files: int = 8             # descriptors the child may open beyond the ones it inherits
    message_bytes: int = 1 << 20    # largest message the host accepts from the child

    @property
    def cpu_error(self) -> str:
        """How a run that used up its CPU time ends, whichever side found it: the child's
        handler or its wakeup pipe, or the host from the child's usage."""
        return f"TimeoutError: program exceeded {self.cpu_seconds:g} s CPU time"


@dataclass
class ActionReply:
    """What the host's handler returns for one action call."""

    value: Any = None
    rebind: dict[str, Any] = field(default_factory=dict)
    stop: bool = False
    error: str | None = None


@dataclass
class RunResult:
    """The outcome of one program; ``error`` is one short line, never a traceback."""

    ok: bool
    error: str | None
    output: str
    actions: int
    stopped: bool
    seconds: float
