"""The HTTP API's guards: API keys, rate limit, body size, safe file names.

Kept apart from `ui.api` so the rules can be read (and tested) without the routes, and so
the same rules apply whatever endpoint is added later.

Why these choices:
- Keys are held only as sha256 digests and compared with `hmac.compare_digest`, so a memory
  dump or a log line never shows a usable key and timing does not leak how much matched.
- Keys are required unless the server binds to loopback *and* no key is configured: a
  configured key is always enforced, and a non-loopback server without keys refuses to start.
- The rate limit is a token bucket per identity (key digest, or client address when no keys
  are in use), bounded in memory, with an injectable clock so tests never sleep.
- The body limit is enforced on the bytes actually received, not only on Content-Length,
  because a chunked request has no Content-Length.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


class ConfigError(ValueError):
    """A security setting that makes serving unsafe (e.g. public bind without keys)."""


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class KeyRing:
    """The accepted API keys, as sha256 digests only."""

    def __init__(self, digests: Iterable[str] = ()) -> None:
        self._digests = sorted({d.lower() for d in digests})

    @classmethod
    def from_settings(cls, settings: Any) -> "KeyRing":
        """Keys from `api_keys` (comma-separated plain keys) and `api_keys_file`.

        The file holds one key per line, or its sha256 hex (so the file need not hold the
        key itself); blank lines and `#` comments are skipped. A missing file is an error:
        silently serving without the intended keys would be worse than not starting.
        """
        digests: list[str] = []
        for key in (settings.get("api_keys") or "").split(","):
            if key.strip():
                digests.append(digest(key.strip()))
        path = settings.get("api_keys_file")
        if path:
            file = Path(path).expanduser()
            if not file.is_file():
                raise ConfigError(f"api_keys_file not found: {file}")
            for line in file.read_text(encoding="utf-8").splitlines():
                line = line.split("#", 1)[0].strip()
                if line:
                    digests.append(line.lower() if _HEX64.match(line) else digest(line))
        return cls(digests)

    def __bool__(self) -> bool:
        return bool(self._digests)

    def __len__(self) -> int:
        return len(self._digests)

    def verify(self, key: str | None) -> str | None:
        """The short id of the key (first 12 hex digits of its digest) if it is accepted."""
        if not key:
            return None
        candidate = digest(key)
        found = None
        for known in self._digests:  # no early exit: same work whichever key matches
            if hmac.compare_digest(candidate, known):
                found = known
        return found[:12] if found else None


def is_loopback(host: str) -> bool:
    if host in {"localhost", "localhost.localdomain"}:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def keys_required(settings: Any, keyring: KeyRing) -> bool:
    """Whether requests must carry a key; raises when the configuration is unsafe."""
    if keyring:
        return True
    if not is_loopback(str(settings.get("host") or "")):
        raise ConfigError(
            f"refusing to serve on {settings.get('host')} without API keys: set RESULTSQA_API_KEYS or "
            "RESULTSQA_API_KEYS_FILE, or bind to 127.0.0.1")
    return False


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class RateLimiter:
    """Token bucket per identity: `per_minute` requests, refilled continuously.

    `per_minute <= 0` disables the limit (for load tests on loopback). Buckets live in an
    LRU of at most `max_identities` entries so a flood of client addresses cannot grow memory.
    The limit is per process: with N workers the effective limit is up to N times higher.
    """

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic,
                 max_identities: int = 10_000) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.max_identities = max_identities
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, identity: str) -> float:
        """0.0 if the request may proceed, else the seconds to wait before retrying."""
        if self.per_minute <= 0:
            return 0.0
        capacity = float(self.per_minute)
        refill = capacity / 60.0
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.pop(identity, (capacity, now))
            tokens = min(capacity, tokens + (now - last) * refill)
            if tokens >= 1.0:
                tokens -= 1.0
                wait = 0.0
            else:
                wait = (1.0 - tokens) / refill
            self._buckets[identity] = (tokens, now)
            while len(self._buckets) > self.max_identities:
                self._buckets.popitem(last=False)
        return wait


Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


class BodyLimitMiddleware:
    """Reject bodies over `max_bytes` with 413, checking Content-Length and the streamed bytes.

    The body is read (bounded) before the app runs and then replayed, so the app never sees a
    partial body; after the replay `receive` is handed through, which keeps disconnect
    detection working for streaming responses.
    """

    def __init__(self, app: Callable, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _send_json(send, 400, {"detail": "invalid Content-Length"})
                return
            if declared > self.max_bytes:
                await _send_json(send, 413, {"detail": f"request body too large (limit {self.max_bytes} bytes)"})
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                await _send_json(send, 413, {"detail": f"request body too large (limit {self.max_bytes} bytes)"})
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class GuardMiddleware:
    """Key check and rate limit for every path under `prefix`, before the body is even read.

    An ASGI middleware rather than a FastAPI dependency because FastAPI parses and validates
    the body before dependencies run: a caller without a key would learn the schema from 422s
    and make us parse bodies we then refuse. The caller's identity ("key:<id>" or
    "ip:<address>") is left in `scope["state"]["identity"]` for the endpoints.
    """

    def __init__(self, app: Callable, *, keyring: KeyRing, require_keys: bool, limiter: RateLimiter,
                 prefix: str = "/v1/") -> None:
        self.app = app
        self.keyring = keyring
        self.require_keys = require_keys
        self.limiter = limiter
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown", 0))[0]
        if self.require_keys:
            headers = dict(scope.get("headers") or [])
            token = bearer_token(headers.get(b"authorization", b"").decode("latin-1"))
            key_id = self.keyring.verify(token)
            if key_id is None:
                wait = self.limiter.check("bad-key:" + client)  # slows key guessing from one address
                if wait:
                    await _send_json(send, 429, {"detail": "too many requests"}, retry_after=wait)
                else:
                    await _send_json(send, 401, {"detail": "missing or invalid API key (Authorization: Bearer <key>)"},
                                     extra=[(b"www-authenticate", b"Bearer")])
                return
            identity = "key:" + key_id
        else:
            identity = "ip:" + client
        wait = self.limiter.check(identity)
        if wait:
            await _send_json(send, 429, {"detail": f"rate limit of {self.limiter.per_minute} requests per minute "
                                         "exceeded"}, retry_after=wait)
            return
        scope.setdefault("state", {})["identity"] = identity
        await self.app(scope, receive, send)


class CatchAllMiddleware:
    """Turn any unhandled exception into a generic 500 body; the traceback goes to the log only.

    Not a FastAPI `exception_handler(Exception)`: Starlette re-raises after such a handler,
    uvicorn then drops the keep-alive connection, and the client's next request on it fails
    with a connection reset (seen under load). Here the exception ends with the response.
    """

    def __init__(self, app: Callable, logger: Any) -> None:
        self.app = app
        self.log = logger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception:
            request_id = secrets.token_hex(6)
            self.log.exception("request %s failed: %s %s", request_id, scope.get("method"), scope.get("path"))
            if not started:
                await _send_json(send, 500, {"detail": "internal error", "request_id": request_id})
            else:  # mid-stream: end the body so the connection stays usable
                await send({"type": "http.response.body", "body": b"", "more_body": False})


class SecurityHeadersMiddleware:
    """Headers every response carries: no MIME sniffing, no framing of API responses by others."""

    HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]

    def __init__(self, app: Callable) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers") or []) + self.HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


async def _send_json(send: Send, status: int, body: dict, *, retry_after: float | None = None,
                     extra: list[tuple[bytes, bytes]] | None = None) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if status == 413:  # the unread rest of the body makes the connection unusable
        headers.append((b"connection", b"close"))
    if retry_after is not None:
        headers.append((b"retry-after", str(int(retry_after) + 1).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": data})


def safe_file(root: Path, name: str, allowed_suffixes: Iterable[str]) -> Path | None:
    """The file `name` directly inside `root`, or None: no separators, no dot files, no escapes.

    Used for every file a request names (the widget assets), so `../`, absolute paths,
    encoded separators and symlinks out of `root` all come back as None (→ 404).
    """
    if not name or name.startswith(".") or "/" in name or "\\" in name or "\x00" in name:
        return None
    if Path(name).suffix not in set(allowed_suffixes):
        return None
    root = root.resolve()
    path = (root / name).resolve()
    if path.parent != root or not path.is_file():
        return None
    return path
