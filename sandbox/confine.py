"""Kernel-level confinement of a program's process: resource limits, isolation from every
other process, and a seccomp allow list.

RestrictedPython only decides what the *program text* may name. If a policy gap ever lets a
program reach the real interpreter (``os``, ``ctypes``), these walls are what still stand
between it and the machine, so they are set up in the forked child before any program code
runs, and none can be undone afterwards: the child holds no capability (a hard limit cannot
be raised without one) and the filter allows none of the calls that would undo the rest.

RLIMIT_NPROC is set but does not always bind for root (the kernel exempts root's own
processes), which is why process creation is also left out of the filter.
"""

from __future__ import annotations

import ctypes
import math
import os
import platform
import resource
import struct

from sandbox.api import Limits


class IsolationError(OSError):
    """The child could not be cut off from other processes' memory and environment."""


_libc = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWUSER = 0x10000000
#: Not dumpable: a crash starts no core-dump helper (a ``core_pattern`` pipe ignores
#: ``RLIMIT_CORE``), and no process of the same uid may ptrace the child.
_PR_SET_DUMPABLE = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def isolate_from_other_processes() -> None:
    """Make every other process's ``/proc/<pid>/mem``, ``environ`` (and ptrace) unreachable.

    Reading them is a ptrace-mode access check. A fresh user namespace fails it for every
    process outside, the host included and whatever their uid, because the child holds no
    capability in their namespace; it is the only way that works for a non-root user, whose
    host runs under the same uid. Where user namespaces are refused (a container's own
    seccomp profile, a sysctl), root still fails the check once it drops every capability,
    since the host's are then not a subset of the child's. A non-root child without a user
    namespace would pass it, so it refuses to run instead. The capabilities the child holds
    inside its own namespace are dropped too: it has no use for them. Last, the child makes
    itself not dumpable (:data:`_PR_SET_DUMPABLE`).
    """
    if _libc.unshare(_CLONE_NEWUSER) != 0:
        errno = ctypes.get_errno()
        if os.geteuid() != 0:
            raise IsolationError(errno, "the sandbox cannot isolate programs from other processes: "
                                        f"user namespaces are unavailable ({os.strerror(errno)})")
    header, data = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if _libc.capset(ctypes.byref(header), data) != 0:
        errno = ctypes.get_errno()
        raise IsolationError(errno, f"the sandbox cannot drop capabilities ({os.strerror(errno)})")
    if _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise IsolationError(errno, f"the sandbox cannot make programs undumpable ({os.strerror(errno)})")


# x86_64 syscall numbers the child may make, and why. Everything else fails with EPERM, so a
# class of attack (signals, mode changes, mounts, other processes' scheduling) is closed as a
# whole, including syscalls newer than this list. Measured by tracing the child running the
# sandbox test suites; the time calls are the vDSO's fallbacks.
_ALLOWED_X86_64: dict[str, int] = {
    # memory
    "brk": 12, "mmap": 9, "munmap": 11, "mremap": 25, "mprotect": 10, "madvise": 28,
    # the channel (already open; no new sockets) and the inherited /dev/null stdio
    "read": 0, "write": 1, "recvfrom": 45, "sendto": 44, "close": 3,
    # reading files for lazy imports (open/openat are allowed read-only, below)
    "pread64": 17, "lseek": 8, "stat": 4, "fstat": 5, "lstat": 6, "newfstatat": 262, "statx": 332,
    "getdents64": 217, "readlink": 89, "readlinkat": 267, "getcwd": 79, "access": 21,
    "faccessat": 269, "faccessat2": 439,
    # its own signal handling, and ending
    "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15, "restart_syscall": 219,
    "exit": 60, "exit_group": 231,
    # time, identity and randomness of this process only
    "clock_gettime": 228, "clock_getres": 229, "gettimeofday": 96, "time": 201, "getpid": 39,
    "gettid": 186, "getrandom": 318, "futex": 202,
}
_SYS_OPEN, _SYS_OPENAT, _SYS_FCNTL, _SYS_IOCTL = 2, 257, 72, 16
_OPEN_WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND
# fcntl: queries and close-on-exec only. F_SETFL (O_ASYNC), F_SETOWN(_EX), F_SETSIG, F_SETLEASE
# and F_NOTIFY would have the kernel signal another process on the child's behalf.
_F_GETFD, _F_SETFD, _F_GETFL = 1, 2, 3
# ioctl: isatty() only. FIOASYNC/FIOSETOWN are the same signal route as fcntl's.
_TCGETS = 0x5401
# Syscalls allowed for some argument values: (index of the argument, allowed values or None,
# bits that must be clear). The kernel reads these arguments as 32-bit ints.
_ARGUMENT_RULES: dict[int, tuple[int, tuple[int, ...] | None, int]] = {
    _SYS_OPEN: (1, None, _OPEN_WRITE_FLAGS),
    _SYS_OPENAT: (2, None, _OPEN_WRITE_FLAGS),
    _SYS_FCNTL: (1, (_F_GETFD, _F_SETFD, _F_GETFL), 0),
    _SYS_IOCTL: (1, (_TCGETS,), 0),
}
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000

_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JGE_K, _BPF_JSET_K, _BPF_RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_KILL_PROCESS, _RET_EPERM = 0x7FFF0000, 0x80000000, 0x00050000 | 1
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def seccomp_supported() -> bool:
    """The filter's syscall table is for x86_64 Linux; elsewhere only rlimits and isolation apply."""
    return platform.system() == "Linux" and platform.machine() == "x86_64"


def _filter_program() -> list[tuple[int, int, int, int]]:
    """Assemble the classic-BPF filter: allow the listed syscalls, check the arguments of
    those in ``_ARGUMENT_RULES``, fail everything else with EPERM (not a kill: CPython then
    raises an ordinary OSError, and the child still reports how the program ended)."""
    allow, deny = "allow", "deny"
    # Each entry: (code, jump-true label or None, jump-false label or None, k).
    prog: list[tuple[int, str | None, str | None, int]] = [
        (_BPF_LD_W_ABS, None, None, 4),                       # arch
        (_BPF_JEQ_K, None, "kill", _AUDIT_ARCH_X86_64),
        (_BPF_LD_W_ABS, None, None, 0),                       # syscall number
        (_BPF_JGE_K, deny, None, _X32_SYSCALL_BIT),
    ]
    prog += [(_BPF_JEQ_K, f"args{nr}", None, nr) for nr in sorted(_ARGUMENT_RULES)]
    prog += [(_BPF_JEQ_K, allow, None, nr) for nr in sorted(_ALLOWED_X86_64.values())]
    prog.append((_BPF_RET_K, None, None, _RET_EPERM))
    labels: dict[str, int] = {}
    for nr, (arg, values, clear_bits) in sorted(_ARGUMENT_RULES.items()):  # BPF only jumps forward
        labels[f"args{nr}"] = len(prog)
        prog.append((_BPF_LD_W_ABS, None, None, 16 + 8 * arg))  # low word of the argument
        if values is not None:
            prog += [(_BPF_JEQ_K, allow, None, value) for value in values]
            prog.append((_BPF_RET_K, None, None, _RET_EPERM))
        else:
            prog += [(_BPF_JSET_K, deny, None, clear_bits), (_BPF_RET_K, None, None, _RET_ALLOW)]
    labels[allow] = len(prog)
    prog.append((_BPF_RET_K, None, None, _RET_ALLOW))
    labels[deny] = len(prog)
    prog.append((_BPF_RET_K, None, None, _RET_EPERM))
    labels["kill"] = len(prog)
    prog.append((_BPF_RET_K, None, None, _RET_KILL_PROCESS))

    def offset(here: int, label: str | None) -> int:
        return 0 if label is None else labels[label] - here - 1

    return [(code, offset(i, jt), offset(i, jf), k) for i, (code, jt, jf, k) in enumerate(prog)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _assemble() -> tuple[int, ctypes.Array[ctypes.c_char]]:
    insns = _filter_program()
    raw = b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in insns)
    return len(insns), ctypes.create_string_buffer(raw, len(raw))


# Assembled once, at import: the worker imports this module before it forks, so a child only
# makes the two prctl calls.
_FILTER_LENGTH, _FILTER = _assemble()


def install_seccomp() -> None:
    """Install the filter for this process and all it could ever create; irreversible."""
    fprog = _SockFprog(_FILTER_LENGTH, ctypes.cast(_FILTER, ctypes.c_void_p))
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def apply_rlimits(limits: Limits, highest_fd: int) -> None:
    """Set hard = soft (CPU: one second above) so the limits hold even for root, who could raise them."""
    cpu = max(1, math.ceil(limits.cpu_seconds))
    memory = limits.memory_mb * 1024 * 1024
    for res, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),          # SIGXCPU first, SIGKILL a second later
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_FSIZE, (0, 0)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NPROC, (0, 0)),
        (resource.RLIMIT_NOFILE, (highest_fd + 1 + limits.open_files,) * 2),
    ):
        resource.setrlimit(res, value)
