"""The program API (contract v1 and its additive pointer actions) as the LLM and the sandbox see it.

One source of truth: :mod:`api_stubs.program_api` holds each action as a stub whose
signature and docstring are the documentation. The prompt's API section is rendered from
these stubs (:func:`render_api` for the v1 actions; :func:`render_calls` and
:func:`render_listing` for the pointer actions), and the sandbox exposes exactly :data:`ACTION_NAMES`
and the modules of :data:`ALLOWED_IMPORTS` (tests hold the prompt's rules and the sandbox's
module table to that list).
"""

from __future__ import annotations

import inspect

from api_stubs import program_api

#: Actions a program calls directly; each returns the new observation.
PRIMARY_ACTIONS: tuple[str, ...] = ("click", "enter_text", "press_key", "scroll")
#: Additions to contract v1 for pointer work (drag, draw, hover, points, text selection,
#: waiting); each returns the new observation like the primary actions.
POINTER_ACTIONS: tuple[str, ...] = ("click_at", "hover", "drag", "drag_to", "draw", "select_text", "wait")
#: The paper's spellings: build an action, then ``env.step(action)`` performs it.
PAPER_ACTIONS: tuple[str, ...] = ("click_action1", "enter_text_action", "scroll_action1", "env.step")
#: Every callable name a program may use (``env.step`` is an attribute of ``env``).
ACTION_NAMES: tuple[str, ...] = PRIMARY_ACTIONS + POINTER_ACTIONS + PAPER_ACTIONS
#: Data names bound in the program's namespace.
DATA_NAMES: tuple[str, ...] = ("task", "observation")
#: Modules a program may import (their public functions only).
ALLOWED_IMPORTS: tuple[str, ...] = ("re", "math", "json", "datetime", "string", "itertools", "collections")


def _stub(name: str) -> object:
    return getattr(program_api.Env, "step") if name == "env.step" else getattr(program_api, name)


def tag_parameters(name: str) -> dict[str, int]:
    """The parameters of action ``name`` that take a tag, each with its position among the
    arguments: ``{'tag': 0}`` for click, ``{'tag': 0, 'to_tag': 2}`` for drag."""
    parameters = [p for p in inspect.signature(_stub(name)).parameters if p != "self"]
    return {p: place for place, p in enumerate(parameters) if p.endswith("tag")}


def render_api(names: tuple[str, ...] = PRIMARY_ACTIONS) -> str:
    """The API section of a prompt: one signature and docstring per action, in order."""
    blocks = []
    for name in names:
        stub = _stub(name)
        signature = str(inspect.signature(stub)).replace("(self, ", "(").replace("'", "")
        doc = inspect.cleandoc(stub.__doc__ or "")
        body = "\n".join("    " + line if line else "" for line in doc.splitlines())
        blocks.append(f"def {name}{signature}:\n{body}")
    return "\n\n".join(blocks)


def _call(name: str) -> str:
    """The action as a call without types: ``drag_to(tag, text, x, y)``."""
    return f"{name}({', '.join(p for p in inspect.signature(_stub(name)).parameters if p != 'self')})"


def render_calls(names: tuple[str, ...] = POINTER_ACTIONS) -> str:
    """The actions' calls on one line, for a prompt that only names them."""
    return ", ".join(map(_call, names))


def render_listing(names: tuple[str, ...] = POINTER_ACTIONS) -> str:
    """One line per action: its call without types, and the first line of its docstring."""
    return "\n".join(f"{_call(name)}: {inspect.cleandoc(_stub(name).__doc__ or '').splitlines()[0]}"
                     for name in names)
