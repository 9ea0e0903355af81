"""Runs hostile, LLM-written Python programs whose only power is a list of proxied actions.

Policy (RestrictedPython, ``sandbox.policy`` and ``sandbox.guards``) decides what a program may
name; confinement (a forked child under rlimits and seccomp, ``sandbox.confine``) is the
boundary; actions cross to the host as plain data (``sandbox.protocol``). Nothing here knows
about browsers or webwise. See SECURITY.md for the threat model.
"""

from sandbox.api import ActionReply, Limits, RunResult
from sandbox.guards import PROGRAM_BUILTINS
from sandbox.host import Sandbox, SandboxError
from sandbox.policy import check

__all__ = ["ActionReply", "Limits", "PROGRAM_BUILTINS", "RunResult", "Sandbox", "SandboxError", "check"]
