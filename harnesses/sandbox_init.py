"""The first program inside the agent's sandbox (stdlib only: the repository is not there).

`python3 -I /run/ceiling/init.py [--relay PORT:SOCKET] [--rlimit NAME=VALUE ...] -- CLI ARGS...`

It sets the run's resource limits on itself, so that everything the CLI starts inherits them; the
process limit is set here, inside the user namespace bubblewrap made, because the kernel counts
processes per user namespace: a fork bomb meets this run's own count, not every run of the same user.
With --relay it forks a small relay (TCP 127.0.0.1:PORT, the address HTTPS_PROXY names, to the
allow-list proxy's Unix socket bound into the sandbox: the sandbox's own network has nothing else),
then it executes the CLI in its own place.
"""

from __future__ import annotations

import os
import resource
import socket
import sys
import threading

RLIMITS = {
    "nproc": resource.RLIMIT_NPROC,
    "fsize": resource.RLIMIT_FSIZE,
    "core": resource.RLIMIT_CORE,
    "nofile": resource.RLIMIT_NOFILE,
    "cpu": resource.RLIMIT_CPU,
}
CHUNK_BYTES = 65536


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy one direction of a connection until it ends, then shut both down (the proxy uses it too)."""
    try:
        while data := source.recv(CHUNK_BYTES):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relay(server: socket.socket, unix_path: str) -> None:
    while True:
        client, _ = server.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(unix_path)
        except OSError:
            client.close()
            continue
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()


def main(argv: list[str]) -> int:
    relay_spec, limits = "", {}
    while argv and argv[0] != "--":
        flag, value = argv[0], argv[1]
        argv = argv[2:]
        if flag == "--relay":
            relay_spec = value
        elif flag == "--rlimit":
            name, number = value.split("=", 1)
            limits[name] = int(number)
        else:
            print(f"sandbox_init: unknown flag {flag}", file=sys.stderr)
            return 2
    command = argv[1:]
    for name, value in limits.items():
        _soft, hard = resource.getrlimit(RLIMITS[name])
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)  # a limit can only be lowered here
        resource.setrlimit(RLIMITS[name], (value, value))
    if relay_spec:
        port, path = relay_spec.split(":", 1)
        server = socket.create_server(("127.0.0.1", int(port)))  # listening before the CLI starts
        if os.fork() == 0:
            try:
                relay(server, path)
            finally:
                os._exit(0)
        server.close()
    os.execvp(command[0], command)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
