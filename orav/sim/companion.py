"""``SimCompanion``: the simulated idb companion as a server on loopback, started and closed
as an async context manager (what ``orav sim`` runs and what tests start in-process)."""

from __future__ import annotations

import socket
import time
import weakref
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Self

from grpclib.protocol import H2Protocol
from grpclib.server import Server

from orav.errors import DeviceError, InputError
from orav.model import Fault
from orav.sim.appmodel import MAX_ANIMATION_MS, AppModel
from orav.sim.apps import DEMO_APP
from orav.sim.loading import load_app_model, pixels_problem
from orav.sim.server import CompanionService
from orav.sim.state import AppState


class _Server(Server):
    """grpclib's server, whose ``close`` also cuts the open client connections.

    grpclib only stops listening and cancels running requests; a client holding a connection
    would keep talking to a companion that is gone. A real companion that dies drops them.
    """

    def __init__(self, handlers: list) -> None:
        super().__init__(handlers)
        self._protocols: weakref.WeakSet[H2Protocol] = weakref.WeakSet()

    def _protocol_factory(self) -> H2Protocol:
        protocol = super()._protocol_factory()
        self._protocols.add(protocol)
        return protocol

    def close(self) -> None:
        super().close()
        for protocol in list(self._protocols):
            connection = getattr(protocol, "connection", None)  # set once the client connects
            if connection is not None:
                connection.close()


class SimCompanion:
    """A simulated companion serving one app, as an async context manager.

    ``app`` is an AppModel, a path to an app-model YAML, or None for the demo app;
    ``clock`` feeds the status-bar time (inject one to make screenshots tick on cue);
    ``animation_ms`` replaces the app model's default animation time (``orav sim
    --animation-ms``) and ``ticker`` (monotonic seconds) times the animations.
    """

    def __init__(
        self,
        app: AppModel | Path | str | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        scale: float = 1.0,
        seed: int = 0,
        faults: Sequence[Fault] = (),
        clock: Callable[[], datetime] = datetime.now,
        animation_ms: int | None = None,
        ticker: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(app, AppModel):
            model = app
            problem = pixels_problem(model, scale)
            if problem is not None:
                raise InputError(problem[1], "--scale")
        else:
            model = load_app_model(Path(app or DEMO_APP), scale=scale)
        if animation_ms is not None and not 0 <= animation_ms <= MAX_ANIMATION_MS:
            raise InputError(f"must be 0 to {MAX_ANIMATION_MS} milliseconds", "--animation-ms")
        state = AppState(
            model, seed=seed, faults=faults, clock=clock, ticker=ticker, animation_ms=animation_ms
        )
        self.service = CompanionService(
            state, scale, seed=seed, clock=clock, ticker=ticker, animation_ms=animation_ms
        )
        self.host = host
        self.port = port
        self._server: _Server | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def state(self) -> AppState:
        """The app in front (the served app until another is installed and launched)."""
        return self.service.state

    def app(self, bundle_id: str) -> AppState:
        """An installed app's state by bundle id."""
        return self.service.apps[bundle_id]

    def schedule(self, fault: Fault) -> None:
        self.state.schedule(fault)

    async def start(self) -> None:
        # A socket created with IPPROTO_TCP gets TCP_NODELAY from asyncio (~1 ms per RPC,
        # not ~44 ms of Nagle delay).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            raise DeviceError(f"{self.address}: cannot listen: {exc.strerror}") from None
        self.port = sock.getsockname()[1]
        self._server = _Server([self.service])
        await self._server.start(sock=sock)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
