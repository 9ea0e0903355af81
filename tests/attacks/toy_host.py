"""A stand-in for the browser side of an episode: a reward that only the right click earns.

The rewarded button is hidden from the program (it is not in the observation and its text is a
secret), so a program can only earn the reward by forging it: the thing the attacks try.
"""

from __future__ import annotations

import copy
from typing import Any

from sandbox import ActionReply


class ToyHost:
    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.elements: list[dict[str, Any]] = [
            {"ref": 0, "tag": "button", "text": secret, "hidden": True},
            {"ref": 1, "tag": "button", "text": "Cancel", "hidden": False},
            {"ref": 2, "tag": "button", "text": "Submit", "hidden": False},
        ]
        self.reward = 0.0
        self.done = False
        self.actions = 0
        self.log: list[str] = []
        self.args_seen: list[Any] = []

    def visible(self) -> list[dict[str, Any]]:
        """The elements themselves, as a naive in-process host would hand them over."""
        return [el for el in self.elements if not el["hidden"]]

    def snapshot(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.elements)

    def click(self, tag: Any, text: Any) -> list[dict[str, Any]]:
        self.actions += 1
        self.args_seen.append((tag, text))
        self.log.append(f"click {tag!s} {text!s}")
        for el in self.elements:
            if el["tag"] == tag and el["text"] == text:
                if el["hidden"]:
                    self.reward, self.done = 1.0, True
                return self.visible()
        raise LookupError(f"no {tag} with text {text!r}")

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if action[0] == "click":
            self.click(action[1], action[2])
        return self.visible(), self.reward, self.done, False, {}

    def handler(self, name: str, args: list, kwargs: dict) -> ActionReply:
        """The sandbox side: the same world, reached only through plain-data action calls."""
        try:
            if name == "click":
                value: Any = self.click(*args, **kwargs)
            elif name == "env.step":
                value = list(self.step(*args, **kwargs))
            else:
                return ActionReply(error=f"unknown action {name}")
        except (LookupError, TypeError, ValueError) as exc:
            return ActionReply(error=str(exc))
        return ActionReply(value=copy.deepcopy(value), rebind={"observation": copy.deepcopy(self.visible())},
                           stop=self.done)
