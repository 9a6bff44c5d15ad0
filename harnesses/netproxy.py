"""The agent's only way out under network=proxy: an HTTP CONNECT proxy on a Unix socket, which the
harness binds into the sandbox (whose own network namespace holds nothing but a loopback), serving only
the configured API hosts.

A request is allowed when it is `CONNECT host:443` for a host on the allow-list, and every address that
host resolves to is a public one (never loopback, link-local such as the cloud metadata address
169.254.169.254, private, multicast or reserved: a name pointed at the host's own services is refused);
the proxy then connects to the very address it checked (no second lookup). Everything else gets 403 and
a line in the run's logs/proxy.log; the tunnel carries TLS end to end, so the proxy sees no content.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from harnesses.sandbox_init import pump  # stdlib only: the sandbox runs it as one file

HEADER_LIMIT_BYTES = 16384
CONNECT_TIMEOUT_S = 10.0
API_PORT = 443
# Each CLI's model API (and the hosts it must reach to run at all); `api_hosts=` adds more.
API_HOSTS = {
    "claude": ("api.anthropic.com",),
    "codex": ("api.openai.com", "chatgpt.com"),
    "opencode": ("api.anthropic.com", "api.openai.com", "openrouter.ai", "models.dev"),
    "kimi": ("api.moonshot.ai", "api.moonshot.cn", "api.kimi.com"),
    "cursor": ("api2.cursor.sh", "api3.cursor.sh", "repo42.cursor.sh"),
    "droid": ("api.factory.ai", "app.factory.ai"),
    "gemini": ("generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"),
}
BASE_URL_NAMES = ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")


def allowed_hosts(harness: str, extra: str, env: dict[str, str]) -> tuple[str, ...]:
    """The allow-list: the CLI's API hosts, the hosts of any base URL it is given, and `extra` (commas)."""
    hosts = list(API_HOSTS.get(harness, ()))
    hosts += [urlparse(env[name]).hostname or "" for name in BASE_URL_NAMES if env.get(name)]
    hosts += [h.strip() for h in extra.split(",")]
    return tuple(sorted({h.lower() for h in hosts if h}))


def public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not (
        ip.is_loopback or ip.is_link_local or ip.is_private or ip.is_multicast or ip.is_reserved or ip.is_unspecified
    )


class AllowListProxy:
    """Serves the socket at `path` in daemon threads from start() to stop(); `log` lists its decisions."""

    def __init__(self, path: Path, hosts: tuple[str, ...], owner_uid: int | None = None):
        self.path, self.hosts, self.owner_uid = Path(path), hosts, owner_uid
        self.log: list[str] = []
        self._server: socket.socket | None = None

    def start(self) -> "AllowListProxy":
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        if self.owner_uid is not None:
            os.chown(self.path, self.owner_uid, -1)
        self.path.chmod(0o600)
        self._server.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.close()
            self._server = None

    def _note(self, verdict: str, target: str, why: str) -> None:
        self.log.append(f"{time.strftime('%H:%M:%S')} {verdict} {target}: {why}")

    def _accept(self) -> None:
        while self._server:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _refuse(self, client: socket.socket, target: str, why: str) -> None:
        self._note("refused", target, why)
        try:
            client.sendall(f"HTTP/1.1 403 Forbidden\r\nContent-Length: {len(why)}\r\n\r\n{why}".encode())
        finally:
            client.close()

    def _serve(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head and len(head) < HEADER_LIMIT_BYTES:
            chunk = client.recv(4096)
            if not chunk:
                client.close()
                return
            head += chunk
        first = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = first.split()
        if len(parts) != 3 or parts[0] != "CONNECT":
            return self._refuse(client, first[:100], "only CONNECT to an allowed API host is served")
        target = parts[1]
        host, _, port = target.rpartition(":")
        host = host.strip("[]").lower()
        if host not in self.hosts:
            return self._refuse(client, target, f"host not on the allow-list {list(self.hosts)}")
        if port != str(API_PORT):
            return self._refuse(client, target, f"only port {API_PORT}")
        try:
            infos = socket.getaddrinfo(host, API_PORT, type=socket.SOCK_STREAM)
        except OSError as exc:
            return self._refuse(client, target, f"lookup failed: {exc}")
        addresses = [info[4][0] for info in infos]
        if not addresses or not all(public_address(a) for a in addresses):
            return self._refuse(client, target, f"resolves to a non-public address {addresses}")
        try:
            upstream = socket.create_connection((addresses[0], API_PORT), timeout=CONNECT_TIMEOUT_S)
            upstream.settimeout(None)
        except OSError as exc:
            return self._refuse(client, target, f"connect failed: {exc}")
        self._note("allowed", target, addresses[0])
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        rest = head.split(b"\r\n\r\n", 1)[1]
        if rest:
            upstream.sendall(rest)
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        pump(upstream, client)
