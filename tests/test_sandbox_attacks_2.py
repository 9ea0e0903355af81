"""Attack suite, second round: classes of attack that ``test_sandbox_attacks.py`` does not cover.

Each test names the harm and asserts it does not happen: no walk into the worker's globals, no
program code running after the host ended the program, no host file read or written, host
alive and a benign program working afterwards, a clear one-line error for arguments that are
not plain data, and a step that ends within its limits. The attacks that broke the sandbox when
they were written are marked "was an escape" with what the fix was; each of those tests fails
with the fix removed.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from sandbox import ActionReply, Limits, RunResult, Sandbox, guards
from attacks.toy_host import ToyHost

SECRET = f"s3cret-{uuid.uuid4().hex[:12]}"
LIMITS = Limits(wall_seconds=5.0, cpu_seconds=1.0, max_actions=50, memory_mb=256, output_chars=2000)
# What a walk into the worker's memory prints: a module's globals, repr of a module, os.environ.
LEAKS = ("sandbox.worker", "<module", "environ(", "__builtins__", "__name__", "<built-in method mro")
BENIGN = ("total = sum(len(el['text']) for el in observation)\nobservation = click('button', 'Cancel')\n"
          "print(total, len(observation))\n")


@pytest.fixture(scope="module")
def sandbox():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WEBWISE_TEST_SECRET", SECRET)
        with Sandbox(LIMITS) as box:
            yield box


def _run(box: Sandbox, code: str, host: ToyHost | None = None, **data: Any) -> tuple[RunResult, ToyHost]:
    host = host or ToyHost(SECRET)
    result = box.run(code, data={"task": "Click Submit.", "observation": host.visible(), **data},
                     functions=["click", "env.step"], handler=host.handler)
    return result, host


def _assert_host_fine(box: Sandbox, result: RunResult, host: ToyHost) -> None:
    """Nothing leaked, nothing forged, a one-line error, and the sandbox still serves."""
    assert SECRET not in result.output and SECRET not in repr(host.args_seen)
    assert host.reward == 0.0 and not host.done
    assert result.actions <= LIMITS.max_actions
    if result.error is not None:
        assert "\n" not in result.error and "Traceback" not in result.error and len(result.error) <= 300
    benign, after = _run(box, BENIGN)
    assert (benign.ok, benign.output, benign.actions) == (True, "12 2\n", 1), benign


# --- Attribute lookups that a proxy passes on to another object (was an escape) ----------------
#
# The run-time guard refuses ``format`` walks on strings, ``obj`` on exceptions and ``mro`` on
# classes by looking at the object a lookup is made on. Three built-in types pass a lookup of a
# public name on to another object: a bound ``super`` (already handled), a method, and a
# generic alias. ``classmethod(x)`` binds *any* object, so ``C.m`` is a method around a string
# and ``C.m.format`` was the real ``str.format``: ``'{0.__globals__[sys].modules[os].environ}'``
# read the worker's globals, modules and environment. ``S[int]`` (a ``str`` subclass that also
# derives from ``collections.ChainMap``, which has ``__class_getitem__``) gave ``str.format``
# unbound the same way. Fixed in ``guards._looked_up_on``, which now follows every such proxy.

STR_AND_CHAINMAP = "class S(str, collections.ChainMap):\n    pass\n"
CLASSMETHOD_OF = "class C:\n    m = classmethod({})\n"
ERROR_OBJ = "try:\n    env.no_such_attribute\nexcept AttributeError as caught:\n    err = caught\n"

PROXY_ATTACKS = {
    "method_format_globals": CLASSMETHOD_OF.format("'{0.__globals__[__name__]} {0.__globals__[os]}'")
    + "print(C.m.format(click))",
    "method_format_environ": CLASSMETHOD_OF.format("'{0.__globals__[sys].modules[os].environ}'")
    + "print(C.m.format(click))",
    "method_format_builtins": CLASSMETHOD_OF.format("'{0.__globals__[__builtins__]}'") + "print(C.m.format(click))",
    "method_format_map": CLASSMETHOD_OF.format("'{f.__globals__[__name__]}'") + "print(C.m.format_map({'f': click}))",
    "method_of_super": "class T(str):\n    pass\n"
    + CLASSMETHOD_OF.format("super(T, T('{0.__globals__[__name__]}'))") + "print(C.m.format(click))",
    "method_of_method": CLASSMETHOD_OF.format("'{0.__globals__[__name__]}'")
    + "class D:\n    m = classmethod(C.m)\nprint(D.m.format(click))",
    "generic_alias_format": STR_AND_CHAINMAP + "print(S[int].format('{0.__globals__[__name__]}', click))",
    "generic_alias_format_map": STR_AND_CHAINMAP
    + "print(S[int].format_map('{f.__globals__[__name__]}', {'f': click}))",
    "generic_alias_mro": "print(dict[str, int].mro())",
    "method_mro": CLASSMETHOD_OF.format("dict") + "print(C.m.mro())",
    "method_of_generic_alias_mro": CLASSMETHOD_OF.format("list[int]") + "print(C.m.mro())",
    "method_exception_obj": ERROR_OBJ + CLASSMETHOD_OF.format("err") + "print(C.m.obj)",
    # the class's ``obj`` is the descriptor that reads any AttributeError's target
    "exception_class_obj": "class E(AttributeError):\n    grab = AttributeError.obj\n"
    "print(E('x', name='n', obj=click).grab)",
}


@pytest.mark.parametrize("code", PROXY_ATTACKS.values(), ids=PROXY_ATTACKS.keys())
def test_a_proxy_does_not_carry_a_lookup_past_the_guard(code: str, sandbox: Sandbox):
    result, host = _run(sandbox, code)
    assert not result.ok, result
    assert "is not allowed" in result.error, result
    assert not any(leak in result.output for leak in LEAKS), result.output
    _assert_host_fine(sandbox, result, host)


def test_the_guard_looks_through_each_proxy_kind():
    """In-process: the same refusals as on the object itself, whatever wraps it."""
    class Holder:
        text = classmethod("{0.__class__}")
        kind = classmethod(dict)

    class Text(str):
        pass

    error = AttributeError("x")
    wrapped_error = type("E", (), {"m": classmethod(error)}).m
    with pytest.raises(ValueError, match="not allowed"):
        guards.guarded_getattr(Holder.text, "format")(1)
    with pytest.raises(ValueError, match="not allowed"):
        guards.guarded_getattr(super(Text, Text("{0.__class__}")), "format")(1)
    with pytest.raises(AttributeError, match="'mro' is not allowed"):
        guards.guarded_getattr(Holder.kind, "mro")
    with pytest.raises(AttributeError, match="'mro' is not allowed"):
        guards.guarded_getattr(list[int], "mro")
    with pytest.raises(AttributeError, match="'obj' is not allowed"):
        guards.guarded_getattr(wrapped_error, "obj")
    # what ordinary programs do through the same proxies still works
    assert guards.guarded_getattr(Holder.text, "upper")() == "{0.__CLASS__}"
    assert guards.guarded_getattr(dict[str, int], "fromkeys")("ab") == {"a": None, "b": None}


# --- Program code after the host ended the program (was an escape) -----------------------------
#
# ``stop`` (and the action budget) must end the child before any more of the program runs. But
# the cyclic collector runs when enough objects were allocated, and freeing a suspended
# generator that sits in a reference cycle runs its ``finally`` block: a program that pads its
# allocations so that the collection falls after its last call was sent had that block spin
# after the host answered ``stop``, and the step took the whole wall-clock limit instead of
# ending at once. Fixed in ``sandbox/worker.py``: the collector is off from sending a call until
# its reply is acted on, and from the program's end on. Which padding hits the window depends on the worker's own
# allocations, so the test tries each padding until the collection falls inside the program.

TRAP = """
def trap():
    try:
        yield
    finally:
        while True:
            pass
def arm():
    g = trap()
    next(g)
    cycle = [g]
    cycle.append(cycle)
arm()
pad = [[] for _ in range({padding})]
click('button', 'Finish')
"""


@pytest.mark.slow
def test_no_finally_block_runs_after_stop():
    def finish(name: str, args: list, kwargs: dict) -> ActionReply:
        return ActionReply(stop=True)

    late: list[tuple[int, RunResult]] = []
    with Sandbox(Limits(wall_seconds=3, cpu_seconds=1)) as box:
        for padding in range(1500):
            result = box.run(TRAP.format(padding=padding), data={}, functions=["click"], handler=finish)
            if not result.stopped:  # the collection fell inside the program: every window was tried
                break
            if result.seconds > 0.5:
                late.append((padding, result))
        else:
            pytest.fail("the collector never ran inside the program: the test no longer reaches the window")
        assert result.error.startswith("TimeoutError") and result.actions == 0, result
    assert late == []


# --- Interpreter crashes through unchecked C recursion (held: the host reports and recovers) ----


@pytest.mark.parametrize("code", [
    "t = ()\nfor i in range(300000):\n    t = (t,)\nprint(hash(t))",
    "t = ()\nfor i in range(300000):\n    t = (t,)\nseen = {t}",
    "t = ()\nfor i in range(300000):\n    t = (t,)\nd = {}\nd[t] = 1",
], ids=["hash", "set", "dict_key"])
def test_a_c_stack_crash_kills_only_the_child(code: str, sandbox: Sandbox):
    """CPython 3.11 hashes nested tuples without a recursion check (like the ``map`` chain in
    SECURITY.md): the child dies of SIGSEGV and leaves no core file in its working directory
    (``/``), the output it had is lost, and the next program runs in a fresh child."""
    cores_before = {name for name in os.listdir("/") if name.startswith("core")}
    result, host = _run(sandbox, "print('before')\n" + code)
    assert (result.ok, result.error, result.output) == (False, "program was killed by SIGSEGV", ""), result
    assert {name for name in os.listdir("/") if name.startswith("core")} == cores_before
    _assert_host_fine(sandbox, result, host)


# --- Policy corners RestrictedPython has had trouble with (held) --------------------------------

POLICY = {
    "match_class_pattern": ("match click:\n    case object(__globals__=g):\n        print(g)", "PolicyError"),
    "match_keyword_attr": ("g = (x for x in [1])\nmatch g:\n    case object(gi_frame=f):\n        print(f)",
                           "PolicyError"),
    "star_import": ("from re import *\nprint(compile)", "PolicyError"),
    "fullwidth_dunder": ("print(click._\uff3fglobals\uff3f\uff3f)", "PolicyError"),  # NFKC: __globals__
    "fullwidth_inspect": ("g = (x for x in [1])\nprint(g.\uff47i_frame)", "PolicyError"),  # NFKC: gi_frame
    "fullwidth_getattr_string": ("print(getattr(click, '_\uff3fglobals\uff3f\uff3f'))", "AttributeError"),
    "nested_spec_walk": ("print('{0:{1.__class__}}'.format(1, click))", "ValueError"),
    "nested_spec_index": ("print('{0:{1[0]}}'.format(1, ['>5']))", "ValueError"),
    "format_builtin_spec": ("print(format(click, '{0.__globals__}'))", "TypeError"),
    "zero_arg_super_format": ("class S(str):\n    def leak(self, f):\n        return super().format(f)\n"
                              "print(S('{0.__globals__[__name__]}').leak(click))", "ValueError"),
    "metaclass_keyword": ("class M(metaclass=object):\n    pass", "PolicyError"),
    "dunder_method_definition": ("class K:\n    def __getattr__(self, name):\n        return 1", "PolicyError"),
    "match_args_assignment": ("class K:\n    __match_args__ = ('__globals__',)", "PolicyError"),
    "async_comprehension": ("async def f():\n    return [x async for x in y]", "PolicyError"),
    "global_builtins": ("def f():\n    global __builtins__\n    __builtins__ = {}\nf()", "PolicyError"),
    "lambda_default_guard": ("f = lambda _getattr_=getattr: 1", "PolicyError"),
    "walrus_underscore": ("print((_print := 1))", "PolicyError"),
    "decorator_action": ("@click\ndef f():\n    pass", "TypeError"),
    "breakpoint": ("breakpoint()", "PolicyError"),
    "input": ("input()", "NameError"),
    "memoryview": ("memoryview(b'x')", "NameError"),
    "type_builtin": ("type(click)", "NameError"),
    "dir_builtin": ("dir(click)", "NameError"),
    "help_builtin": ("help(click)", "NameError"),
}


@pytest.mark.parametrize("code, error", POLICY.values(), ids=POLICY.keys())
def test_policy_corners_are_refused(code: str, error: str, sandbox: Sandbox):
    result, host = _run(sandbox, code)
    assert not result.ok and result.error.startswith(error), result
    assert not any(leak in result.output for leak in LEAKS), result.output
    _assert_host_fine(sandbox, result, host)


# --- Action arguments of odd types and sizes (held: refused in the child, one clear line) -------

REFUSED_ARGUMENTS = {
    "ordered_dict": ("collections.OrderedDict(a='Submit')", "value of type OrderedDict"),
    "counter": ("collections.Counter('Submit')", "value of type Counter"),
    "namedtuple": ("collections.namedtuple('P', 'a b')('button', 'Submit')", "value of type P"),
    "int_subclass": ("I(1)", "value of type I"),
    "float_subclass": ("F(1.5)", "value of type F"),
    "list_subclass": ("L(['Submit'])", "value of type L"),
    "regex_flag": ("re.IGNORECASE", "value of type RegexFlag"),  # an int subclass from an allowed module
    "bytes": ("b'Submit'", "value of type bytes"),
    "set": ("{'Submit'}", "value of type set"),
    "range": ("range(3)", "value of type range"),
    "deque": ("collections.deque(['Submit'])", "value of type deque"),
    "datetime": ("datetime.date(2020, 1, 1)", "value of type date"),
    "function": ("print", "value of type method"),
    "module": ("json", "value of type Namespace"),
    "self_reference": ("loop", "data nested deeper than 32 levels"),
    "exponential_dag": ("dag", "data nested deeper than 32 levels"),
    "infinite_float": ("1e308 * 10", "non-finite float"),
    "non_str_key": ("{('a',): 1}", "dict key of type tuple"),
    "str_subclass_key": ("{K('text'): 'Submit'}", "dict key of type K"),
}
ARGUMENT_SETUP = (
    "class I(int):\n    pass\nclass F(float):\n    pass\nclass L(list):\n    pass\n"
    "class K(str):\n    pass\n"
    "loop = []\nloop.append(loop)\n"
    "dag = ['x']\nfor _ in range(60):\n    dag = [dag, dag]\n"
)


@pytest.mark.parametrize("argument, why", REFUSED_ARGUMENTS.values(), ids=REFUSED_ARGUMENTS.keys())
def test_odd_action_arguments_are_refused_before_they_leave_the_child(argument: str, why: str, sandbox: Sandbox):
    result, host = _run(sandbox, ARGUMENT_SETUP + f"click('button', {argument})")
    assert (result.ok, result.actions, host.args_seen) == (False, 0, [])
    assert result.error == f"TypeError: click() arguments must be plain data ({why})", result
    _assert_host_fine(sandbox, result, host)


@pytest.mark.parametrize("argument, delivered", [
    ("'\\ud800'", "\ud800"),                      # a lone surrogate: JSON carries it exactly
    ("'\\x1b[2J\\u202e' + 'x' * 1000", "\x1b[2J\u202e" + "x" * 1000),
    ("-0.0", -0.0),
    ("10 ** 4000", 10 ** 4000),                   # below the int-to-text digit limit
    ("True", True),
], ids=["lone_surrogate", "terminal_escapes", "negative_zero", "big_int", "bool"])
def test_plain_arguments_arrive_exactly_as_sent(argument: str, delivered: Any, sandbox: Sandbox):
    result, host = _run(sandbox, f"try:\n    click('button', {argument})\nexcept ActionError:\n    print('refused')\n")
    assert result.ok and result.output == "refused\n", result
    [(tag, text)] = host.args_seen
    assert tag == "button" and type(text) is type(delivered) and text == delivered
    _assert_host_fine(sandbox, result, host)


def test_an_int_too_long_for_text_is_a_clear_error(sandbox: Sandbox):
    """JSON writes ints as text, which CPython refuses past 4300 digits: the call fails in the
    child with that error, and nothing reaches the host."""
    result, host = _run(sandbox, "click('button', 10 ** 5000)")
    assert (result.ok, result.actions, host.args_seen) == (False, 0, [])
    assert result.error.startswith("ValueError: Exceeds the limit (4300 digits)"), result
    _assert_host_fine(sandbox, result, host)


def test_a_wide_argument_is_bounded_by_the_cpu_limit_not_the_host(sandbox: Sandbox):
    """Shared references make a list of 10**9 leaves out of a few kilobytes: checking it costs
    the child's CPU, never the host's."""
    code = "row = ['x'] * 1000\ngrid = [row] * 1000\ncube = [grid] * 1000\nclick('button', cube)"
    result, host = _run(sandbox, code)
    assert not result.ok and host.args_seen == []
    assert result.error in ("TimeoutError: program exceeded 1 s CPU time",
                            "MemoryError: program exceeded 256 MiB of memory"), result
    assert result.seconds < LIMITS.wall_seconds + 1
    _assert_host_fine(sandbox, result, host)


# --- Loops that never return to the interpreter, and other bombs (held: limits end them) --------

BOMBS = {
    # infinite loops inside C: no bytecode runs, only the kernel's limits stop them
    "sum_repeat": ("sum(itertools.repeat(1))", "cpu"),
    "deque_count": ("collections.deque(itertools.count(), maxlen=1)", "cpu"),
    "in_cycle": ("'a' in itertools.cycle('b')", "cpu"),
    "any_repeat": ("any(itertools.repeat(0))", "cpu"),
    "max_count": ("max(itertools.count())", "cpu"),
    "regex_sub": ("re.sub(r'(a|aa)+$', '', 'a' * 60 + 'b')", "cpu"),
    "regex_fullmatch": ("re.fullmatch(r'(\\w+\\s?)+$', 'word ' * 30 + '!')", "cpu"),
    "factorial": ("math.factorial(10 ** 8)", "cpu"),
    "pow_huge": ("pow(3, 10 ** 9)", "cpu"),
    "list_count": ("list(itertools.count())", "memory"),
    "hex_huge": ("hex(1 << 10 ** 10)", "memory"),
    "center": ("'x'.center(10 ** 10)", "memory"),
    "format_width": ("'{:>1000000000}'.format('x') * 10", "memory"),
    "json_indent": ("json.dumps([[0]] * 1000, indent=10 ** 6)", "memory"),
    "permutations": ("list(itertools.permutations(range(13)))", "memory"),
    "product_bytes": ("b'x' * 10 ** 10", "memory"),
    "str_huge_int": ("str(10 ** 5000)", "value"),
    "expandtabs": ("'\\t'.expandtabs(10 ** 10)", "overflow"),
}
CPU_LIMIT = "TimeoutError: program exceeded 1 s CPU time"
#: The errors a bomb of each kind may end with. A memory bomb that grows slowly (a list built
#: an item at a time) meets the CPU limit first on a loaded machine: a limit all the same.
BOMB_ERRORS = {
    "cpu": (CPU_LIMIT,),
    "memory": ("MemoryError: program exceeded 256 MiB of memory", CPU_LIMIT),
    "value": ("ValueError: Exceeds the limit (4300 digits) for integer string conversion",),
    "overflow": ("OverflowError: ",),
}


@pytest.mark.parametrize("code, kind", [pytest.param(*bomb, marks=pytest.mark.slow) if bomb[1] == "cpu"
                                        else bomb for bomb in BOMBS.values()], ids=BOMBS.keys())
def test_bombs_end_at_a_limit_with_the_host_responsive(code: str, kind: str, sandbox: Sandbox):
    result, host = _run(sandbox, "print('started')\n" + code)
    assert not result.ok and result.error.startswith(BOMB_ERRORS[kind]), result  # startswith takes a tuple
    assert result.seconds < LIMITS.wall_seconds + 1
    _assert_host_fine(sandbox, result, host)


def test_a_flood_of_empty_prints_is_bounded(sandbox: Sandbox):
    """Past the output cap every print still appended an empty part: the flood costs the
    child's memory and CPU only, and the output stays capped."""
    result, host = _run(sandbox, "print('x' * 3000)\nfor i in range(200_000):\n    print(end='')\nprint('done')")
    assert result.output.endswith("[output truncated]") and len(result.output) <= LIMITS.output_chars + 40
    assert result.seconds < LIMITS.wall_seconds + 1
    _assert_host_fine(sandbox, result, host)


def test_output_and_errors_with_terminal_escapes_and_surrogates_reach_the_host_intact(sandbox: Sandbox):
    """A print or an exception message can hold any character: it crosses as JSON and arrives
    as the same text (the host's writers escape it; see ``webwise.untrusted``)."""
    code = "print('\\x1b[2J\\ud800\\u202e')\nraise ValueError('\\x1b]0;pwned\\x07\\udfff')"
    result, host = _run(sandbox, code)
    assert result.output == "\x1b[2J\ud800\u202e\n"
    assert result.error == "ValueError: \x1b]0;pwned\x07\udfff"
    _assert_host_fine(sandbox, result, host)


# --- The CPU limit's handler kept from running (was a limit break) -------------------------------
#
# The soft CPU limit's signal is handled in the child by a Python function, which runs on the
# program's stack and heap. A program spinning at the recursion limit, or with memory full,
# makes the call of that handler fail: the RecursionError or MemoryError is raised where the
# program spins, and it catches it. It ran on for up to the second before the kernel's hard
# limit, acted on the page in it, and ended with ok=True. Fixed twice over: an action call made
# past the CPU time ends the program, and the host reads the child's CPU time before its word.

SPIN_AT_THE_RECURSION_LIMIT = """
print('start')
state = {'spinning': False}
def deep(n):
    try:
        return deep(n + 1)
    except RecursionError:
        pass
    if state['spinning']:
        return n  # this RecursionError was the limit's handler, called one frame deeper
    state['spinning'] = True
    while True:
        pass
deep(0)
print('ran on past the CPU limit')
"""
SPIN_WITH_MEMORY_FULL = """
print('start')
hold = []
pairs = [None] * 400000
def fill():
    for size in (1 << 22, 1 << 20, 1 << 16, 1 << 12, 1024, 256, 64, 16, 0):
        while True:
            try:
                hold.append(b'x' * size)
            except MemoryError:
                break
    for i in range(400000):  # the last crumbs, in small objects
        pairs[i] = (i, i)
try:
    fill()
except MemoryError:
    pass
try:
    while True:
        pass
except MemoryError:
    pass  # the limit's handler, which found no memory to be called with
hold = pairs = None
print('ran on past the CPU limit')
"""


@pytest.mark.parametrize("code", [SPIN_AT_THE_RECURSION_LIMIT, SPIN_WITH_MEMORY_FULL], ids=["stack", "memory"])
def test_a_program_that_keeps_the_cpu_limits_handler_from_running_does_not_end_well(code: str, sandbox: Sandbox):
    result, host = _run(sandbox, code)
    assert (result.ok, result.error) == (False, CPU_LIMIT), result
    assert result.seconds < LIMITS.wall_seconds + 1
    _assert_host_fine(sandbox, result, host)


def test_a_program_past_its_cpu_time_acts_no_more_and_keeps_what_it_printed(sandbox: Sandbox):
    result, host = _run(sandbox, SPIN_AT_THE_RECURSION_LIMIT + "click('button', 'Cancel')\nprint('and acted')\n")
    assert (result.ok, result.error, result.actions, host.args_seen) == (False, CPU_LIMIT, 0, []), result
    assert result.output == "start\nran on past the CPU limit\n"
    _assert_host_fine(sandbox, result, host)


# --- Files of the host (held: no route to a file through the policy) ----------------------------

FILE_ROUTES = {
    "json_load_path": "print(json.loads(open(SENTINEL).read()))",
    "datetime_strptime_path": "print(datetime.datetime.strptime(SENTINEL, '%Y'))",
    "re_template_file": "print(re.sub('x', '\\\\g<0>', SENTINEL))",
    "format_spec_file": "print(format(datetime.date(2020, 1, 1), SENTINEL))",
    "string_capwords": "print(string.capwords(SENTINEL))",
}


@pytest.mark.parametrize("code", FILE_ROUTES.values(), ids=FILE_ROUTES.keys())
def test_no_allowed_function_reads_a_host_file(code: str, sandbox: Sandbox, tmp_path: Path):
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(SECRET)
    result, host = _run(sandbox, code, SENTINEL=str(secret_file))
    assert SECRET not in result.output and SECRET not in (result.error or "")
    assert secret_file.read_text() == SECRET and sorted(p.name for p in tmp_path.iterdir()) == ["secret.txt"]
    _assert_host_fine(sandbox, result, host)
