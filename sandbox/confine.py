"""Kernel-level confinement of a program's process: resource limits and a seccomp filter.

RestrictedPython only decides what the *program text* may name. If a policy gap ever lets a
program reach the real interpreter (``os``, ``ctypes``), these limits are what still stand
between it and the machine, so they are applied in the forked child before any program code
runs and cannot be raised again afterwards (``setrlimit``/``prlimit64`` are filtered).

RLIMIT_NPROC is set but does not bind for root (CAP_SYS_RESOURCE ignores it), which is why
process creation is also denied by seccomp.
"""

from __future__ import annotations

import ctypes
import math
import platform
import resource
import struct

from sandbox.api import Limits

# Syscalls a confined program never needs (x86_64 numbers). The filter is a deny list: an allow
# list would have to track every syscall CPython and glibc may use lazily, and a single miss
# turns into a crash that looks like a program error.
_DENIED_X86_64: dict[str, int] = {
    # new processes and programs
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "clone3": 435,
    # signals to other processes (the host), other processes' memory
    "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
    "pidfd_send_signal": 424, "pidfd_open": 434, "pidfd_getfd": 438,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
    # network
    "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50, "socketpair": 53,
    "accept4": 288,
    # writing to the file system (open/openat with write flags are checked separately)
    "creat": 85, "openat2": 437, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "truncate": 76, "ftruncate": 77, "rename": 82, "mkdir": 83, "rmdir": 84, "link": 86,
    "unlink": 87, "symlink": 88, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93,
    "lchown": 94, "utime": 132, "mknod": 133, "utimes": 235, "mkdirat": 258, "mknodat": 259,
    "fchownat": 260, "futimesat": 261, "unlinkat": 263, "renameat": 264, "linkat": 265,
    "symlinkat": 266, "fchmodat": 268, "utimensat": 280, "renameat2": 316,
    "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
    "lremovexattr": 198, "fremovexattr": 199, "memfd_create": 319,
    # raising limits back, leaving the process group, changing identity or namespaces
    "setrlimit": 160, "prlimit64": 302, "setpgid": 109, "setsid": 112, "setuid": 105,
    "setgid": 106, "setreuid": 113, "setregid": 114, "setgroups": 116, "setresuid": 117,
    "setresgid": 119, "setfsuid": 122, "setfsgid": 123, "capset": 126, "unshare": 272,
    "setns": 308, "chroot": 161, "pivot_root": 155, "mount": 165, "umount2": 166,
    # kernel attack surface with no use here (io_uring would also bypass this filter)
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248,
    "request_key": 249, "vmsplice": 278, "personality": 135, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
    "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "syslog": 103,
    "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173,
    "settimeofday": 164, "clock_settime": 227, "adjtimex": 159, "clock_adjtime": 305,
}
_SYS_OPEN, _SYS_OPENAT = 2, 257
_OPEN_WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000

_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JGE_K, _BPF_JSET_K, _BPF_RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_KILL_PROCESS, _RET_EPERM = 0x7FFF0000, 0x80000000, 0x00050000 | 1
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def seccomp_supported() -> bool:
    """The filter's syscall table is for x86_64 Linux; elsewhere only rlimits apply."""
    return platform.system() == "Linux" and platform.machine() == "x86_64"


def _filter_program() -> list[tuple[int, int, int, int]]:
    """Assemble the classic-BPF filter: deny listed syscalls and opens that can write."""
    deny = "deny"
    # Each entry: (code, jump-true label or None, jump-false label or None, k).
    prog: list[tuple[int, str | None, str | None, int]] = [
        (_BPF_LD_W_ABS, None, None, 4),                       # arch
        (_BPF_JEQ_K, None, "kill", _AUDIT_ARCH_X86_64),
        (_BPF_LD_W_ABS, None, None, 0),                       # syscall number
        (_BPF_JGE_K, deny, None, _X32_SYSCALL_BIT),
        (_BPF_JEQ_K, "open", None, _SYS_OPEN),
        (_BPF_JEQ_K, "openat", None, _SYS_OPENAT),
    ]
    prog += [(_BPF_JEQ_K, deny, None, nr) for nr in sorted(_DENIED_X86_64.values())]
    prog.append((_BPF_RET_K, None, None, _RET_ALLOW))
    labels: dict[str, int] = {}
    for label, flags_arg in (("open", 1), ("openat", 2)):   # BPF only jumps forward
        labels[label] = len(prog)
        prog += [
            (_BPF_LD_W_ABS, None, None, 16 + 8 * flags_arg),  # low word of the flags argument
            (_BPF_JSET_K, deny, None, _OPEN_WRITE_FLAGS),
            (_BPF_RET_K, None, None, _RET_ALLOW),
        ]
    labels[deny] = len(prog)
    prog.append((_BPF_RET_K, None, None, _RET_EPERM))
    labels["kill"] = len(prog)
    prog.append((_BPF_RET_K, None, None, _RET_KILL_PROCESS))

    def offset(here: int, label: str | None) -> int:
        return 0 if label is None else labels[label] - here - 1

    return [(code, offset(i, jt), offset(i, jf), k) for i, (code, jt, jf, k) in enumerate(prog)]


def install_seccomp() -> None:
    """Install the filter for this process and all it could ever create; irreversible."""
    insns = _filter_program()
    raw = b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in insns)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(insns), ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
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
