"""The agent sandbox's seccomp filter: a classic BPF program, written here instruction by instruction,
that bubblewrap loads with `--seccomp FD` just before it starts the agent's CLI.

Why hand-written: the filter is short, its rules are easy to read as a table, and it needs no library
(libseccomp's Python bindings are not on PyPI). The kernel checks the program when bwrap loads it, and
the probe tests run the refused calls for real.

What it refuses (errno EPERM unless noted), and why:
- handle-based opens (name_to_handle_at, open_by_handle_at): a file handle names an inode on the whole
  file system, so it walks around every mount the sandbox made (the host's root was opened this way);
- mounts and namespaces (mount, umount2, pivot_root, chroot, the new mount API, unshare, setns, and
  clone with any CLONE_NEW* flag; clone3 gets ENOSYS so libc falls back to clone, whose flags a filter
  can read): the sandbox's layout and namespaces are fixed once the CLI starts;
- other processes' memory and descriptors (ptrace, process_vm_readv/writev, pidfd_getfd);
- kernel attack surface the agent does not need (bpf, perf_event_open, userfaultfd, io_uring, keyctl,
  add_key, request_key, kernel modules, kexec, swap, reboot, clocks, syslog, quotas, acct, fanotify);
- raw and packet sockets, and every socket family but Unix, IPv4, IPv6 and netlink (EAFNOSUPPORT);
- TIOCSTI, which pushes characters into a terminal's input queue;
- any other ABI than the machine's own (x32 and 32-bit calls): their numbers differ and would walk
  around the table (the process is killed).
"""

from __future__ import annotations

import errno
import os
import platform
import struct

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
LD_W_ABS, JEQ_K, JSET_K, JGE_K, AND_K, RET_K = 0x20, 0x15, 0x45, 0x35, 0x54, 0x06
RET_ALLOW, RET_KILL_PROCESS, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
# Offsets into struct seccomp_data: nr, arch, then the six 64-bit arguments (low halves, little-endian).
NR_OFFSET, ARCH_OFFSET = 0, 4


def arg_offset(index: int) -> int:
    return 16 + 8 * index


ARCH_AUDIT = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
CLONE_NAMESPACE_FLAGS = 0x7E020000  # NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
SOCK_TYPE_MASK, SOCK_RAW, SOCK_PACKET = 0xF, 3, 10
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
TIOCSTI = 0x5412

REFUSED_CALLS = (
    "name_to_handle_at",
    "open_by_handle_at",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "swapon",
    "swapoff",
    "reboot",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "syslog",
    "quotactl",
    "acct",
    "fanotify_init",
    "lookup_dcookie",
    "vhangup",
    "sethostname",
    "setdomainname",
)
# Syscall numbers (asm/unistd_64.h for x86_64, asm-generic/unistd.h for aarch64); tests check them
# against the headers where those are installed.
SYSCALLS = {
    "x86_64": {
        "ioctl": 16,
        "socket": 41,
        "clone": 56,
        "ptrace": 101,
        "syslog": 103,
        "vhangup": 153,
        "pivot_root": 155,
        "adjtimex": 159,
        "chroot": 161,
        "acct": 163,
        "settimeofday": 164,
        "mount": 165,
        "umount2": 166,
        "swapon": 167,
        "swapoff": 168,
        "reboot": 169,
        "sethostname": 170,
        "setdomainname": 171,
        "init_module": 175,
        "delete_module": 176,
        "quotactl": 179,
        "lookup_dcookie": 212,
        "clock_settime": 227,
        "kexec_load": 246,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "unshare": 272,
        "perf_event_open": 298,
        "fanotify_init": 300,
        "name_to_handle_at": 303,
        "open_by_handle_at": 304,
        "clock_adjtime": 305,
        "setns": 308,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "finit_module": 313,
        "kexec_file_load": 320,
        "bpf": 321,
        "userfaultfd": 323,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "clone3": 435,
        "pidfd_getfd": 438,
        "mount_setattr": 442,
    },
    "aarch64": {
        "lookup_dcookie": 18,
        "ioctl": 29,
        "umount2": 39,
        "mount": 40,
        "pivot_root": 41,
        "chroot": 51,
        "vhangup": 58,
        "quotactl": 60,
        "acct": 89,
        "unshare": 97,
        "kexec_load": 104,
        "init_module": 105,
        "delete_module": 106,
        "clock_settime": 112,
        "syslog": 116,
        "ptrace": 117,
        "reboot": 142,
        "sethostname": 161,
        "setdomainname": 162,
        "settimeofday": 170,
        "adjtimex": 171,
        "socket": 198,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "swapon": 224,
        "swapoff": 225,
        "perf_event_open": 241,
        "fanotify_init": 262,
        "name_to_handle_at": 264,
        "open_by_handle_at": 265,
        "clock_adjtime": 266,
        "setns": 268,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "finit_module": 273,
        "bpf": 280,
        "userfaultfd": 282,
        "kexec_file_load": 294,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "clone3": 435,
        "pidfd_getfd": 438,
        "mount_setattr": 442,
    },
}


class SeccompError(RuntimeError):
    pass


def _insn(code: int, jt: int = 0, jf: int = 0, k: int = 0) -> tuple[int, int, int, int]:
    return (code, jt, jf, k)


def _deny(err: int) -> tuple:
    return _insn(RET_K, k=RET_ERRNO | err)


def _when_nr(nr: int, block: list[tuple]) -> list[tuple]:
    """`if nr == NR: <block>` where the block always returns; otherwise fall through past it."""
    return [_insn(JEQ_K, 0, len(block), nr), *block]


def _clone_block() -> list[tuple]:
    return [
        _insn(LD_W_ABS, k=arg_offset(0)),
        _insn(JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS),
        _deny(errno.EPERM),
        _insn(RET_K, k=RET_ALLOW),
    ]


def _socket_block() -> list[tuple]:
    check_type = [
        _insn(LD_W_ABS, k=arg_offset(1)),
        _insn(AND_K, k=SOCK_TYPE_MASK),
        _insn(JEQ_K, 2, 0, SOCK_RAW),
        _insn(JEQ_K, 1, 0, SOCK_PACKET),
        _insn(RET_K, k=RET_ALLOW),
        _deny(errno.EPERM),
    ]
    return [
        _insn(LD_W_ABS, k=arg_offset(0)),
        _insn(JEQ_K, 4, 0, AF_UNIX),
        _insn(JEQ_K, 3, 0, AF_NETLINK),
        _insn(JEQ_K, 3, 0, AF_INET),
        _insn(JEQ_K, 2, 0, AF_INET6),
        _deny(errno.EAFNOSUPPORT),
        _insn(RET_K, k=RET_ALLOW),
        *check_type,
    ]


def _ioctl_block() -> list[tuple]:
    return [
        _insn(LD_W_ABS, k=arg_offset(1)),
        _insn(JEQ_K, 0, 1, TIOCSTI),
        _deny(errno.EPERM),
        _insn(RET_K, k=RET_ALLOW),
    ]


def program(machine: str | None = None) -> list[tuple[int, int, int, int]]:
    """The filter's instructions for `machine` (platform.machine() by default)."""
    machine = machine or platform.machine()
    if machine not in SYSCALLS:
        raise SeccompError(
            f"no seccomp syscall table for machine {machine!r} (harnesses/seccomp_filter.py "
            f"knows {', '.join(SYSCALLS)}); add its numbers or run with sandbox=none (unsafe)"
        )
    numbers = SYSCALLS[machine]
    insns = [
        _insn(LD_W_ABS, k=ARCH_OFFSET),
        _insn(JEQ_K, 1, 0, ARCH_AUDIT[machine]),
        _insn(RET_K, k=RET_KILL_PROCESS),
        _insn(LD_W_ABS, k=NR_OFFSET),
    ]
    if machine == "x86_64":
        insns += [_insn(JGE_K, 0, 1, X32_SYSCALL_BIT), _insn(RET_K, k=RET_KILL_PROCESS)]
    for name in REFUSED_CALLS:
        insns += _when_nr(numbers[name], [_deny(errno.EPERM)])
    insns += _when_nr(numbers["clone3"], [_deny(errno.ENOSYS)])
    # Each argument block reloads the accumulator, so it must end in returns on every path.
    insns += _when_nr(numbers["clone"], _clone_block())
    insns += _when_nr(numbers["socket"], _socket_block())
    insns += _when_nr(numbers["ioctl"], _ioctl_block())
    insns.append(_insn(RET_K, k=RET_ALLOW))
    return insns


def program_bytes(machine: str | None = None) -> bytes:
    """struct sock_filter[] as the kernel reads it: u16 code, u8 jt, u8 jf, u32 k, native byte order."""
    return b"".join(struct.pack("=HBBI", *insn) for insn in program(machine))


def filter_fd(machine: str | None = None) -> int:
    """A descriptor holding the program at offset 0, for `bwrap --seccomp FD` (the caller closes it)."""
    fd = os.memfd_create("ceiling-seccomp", 0)
    os.write(fd, program_bytes(machine))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
