"""The sandbox: a folder orav makes for one run of an app and throws away after it.

The app's world is redirected into it: ``HOME``, the ``XDG_*`` folders and ``TMPDIR`` point
inside it, and the working folder is a copy, so an app that opens ``sample.db`` or writes
``~/notes.md`` finds and changes the sandbox's files, never the user's. Where the OS allows it
without privileges, the app also runs in a network namespace of its own, with no network.
What the app changed is read off a stat snapshot of the folder (``changes``), as paths
relative to it: ``home/notes.md``, ``work/sample.db``.

This is a guard against the test's own actions (an explorer pressing Delete), not a security
sandbox: an app that means harm can still write by absolute path outside it, read the user's
files, or reach the network where no namespace could be made.

API::

    options = WorldOptions(files=("~/.config/app.toml",), network=False, keep=False)
    sandbox = Sandbox.make(Path.cwd(), options=options)
    sandbox.environment(os.environ)   # the app's environment, redirected into the sandbox
    sandbox.command([python, ...])    # the command, in a network namespace when it is off
    sandbox.network                   # "off", "on", or "on: could not be turned off: why"
    sandbox.changes()                 # WorldChanges since the last call (or since made)
    sandbox.remove()                  # gone (unless kept: ``keep=True``)
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from attrs import frozen

from orav.errors import InputError
from orav.model import FileChange, WorldChanges

MAX_FILES = 5000  # in the copy of the working folder
MAX_BYTES = 256 * 1024 * 1024
MAX_WATCHED = 20_000  # entries a snapshot looks at; beyond, changes go unseen (and said so)
PROBE_SECONDS = 5.0
# Folders never copied: orav's own state and a tool's, by structure where there is one (a
# virtualenv has pyvenv.cfg, a cache CACHEDIR.TAG), else by name.
SKIPPED_NAMES = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules"})
# the sandbox's folders and what points at each (relative to the sandbox)
HOME, WORK, TMP = "home", "work", "tmp"
XDG = {
    "XDG_CONFIG_HOME": "home/.config",
    "XDG_DATA_HOME": "home/.local/share",
    "XDG_STATE_HOME": "home/.local/state",
    "XDG_CACHE_HOME": "home/.cache",
    "XDG_RUNTIME_DIR": "run",
}
Stat = tuple[int, int, bool]  # size, mtime in ns, is a folder


@frozen
class WorldOptions:
    """How the app's world is made. A sandbox: ``files`` the app needs beyond the working
    folder (or skipped by the copy: relative to it, or ``~/...``), ``skip`` folders not copied
    (orav's output), ``network`` on, ``keep`` the folder after the run (for debugging). An
    ``idb:`` device: ``disposable`` when the user declares it orav's own to throw away."""

    files: tuple[str, ...] = ()
    skip: tuple[str, ...] = ("recordings",)  # orav's cassettes (the config's default folder)
    network: bool = False
    keep: bool = False
    disposable: bool = False


class Sandbox:
    """One run's world in a folder of its own (``root``): ``home``, ``work`` (the copy of the
    working folder, the app's working folder), ``tmp`` and the XDG folders."""

    def __init__(self, root: Path, source: Path, *, network: bool, keep: bool) -> None:
        self.root = root
        self.source = source  # the working folder copied into ``work``
        self.keep = keep
        self._namespace = None if network else network_namespace()
        if network:
            self.network = "on"
        elif self._namespace is None:
            self.network = f"on: could not be turned off: {namespace_refusal()}"
        else:
            self.network = "off"
        self._last: dict[str, Stat] = {}

    @classmethod
    def make(cls, source: Path | None = None, *, options: WorldOptions) -> Sandbox:
        """A new sandbox holding a copy of ``source`` (default: the working folder) and the
        ``options``' files; InputError when the copy would exceed its bounds or a file named
        is missing."""
        source = (source or Path.cwd()).resolve()
        root = Path(tempfile.mkdtemp(prefix="orav-world-"))
        sandbox = cls(root, source, network=options.network, keep=options.keep)
        try:
            for folder in (HOME, WORK, TMP, *XDG.values()):
                (root / folder).mkdir(parents=True, exist_ok=True)
            (root / XDG["XDG_RUNTIME_DIR"]).chmod(0o700)
            _copy_tree(source, root / WORK, {(source / p).resolve() for p in options.skip})
            for name in options.files:
                sandbox._bring(name)
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        sandbox._last = sandbox._snapshot()
        return sandbox

    @property
    def work(self) -> Path:
        """The app's working folder: the copy of the user's."""
        return self.root / WORK

    def inside(self, path: str | Path) -> Path:
        """Where ``path`` (in the user's working folder) is in the copy; the path itself when
        it lies outside the working folder."""
        resolved = Path(path).resolve()
        try:
            return self.work / resolved.relative_to(self.source)
        except ValueError:
            return Path(path)

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` with the app's world redirected into the sandbox (and no bytecode written
        into the copy, which would be a change the app did not make)."""
        env = dict(base)
        env["HOME"] = str(self.root / HOME)
        env["TMPDIR"] = env["TEMP"] = env["TMP"] = str(self.root / TMP)
        for name, folder in XDG.items():
            env[name] = str(self.root / folder)
        env["PWD"] = str(self.work)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run in a network namespace of its own when the network is off."""
        if self._namespace is None:
            return list(argv)
        return [*self._namespace, "--", *argv]

    def changes(self) -> WorldChanges:
        """The files and folders created, changed or deleted since the last call (a folder's
        own time changes with its entries: a folder is only created or deleted)."""
        now = self._snapshot()
        before, self._last = self._last, now
        found: list[FileChange] = []
        for path in sorted(before.keys() | now.keys()):
            old, new = before.get(path), now.get(path)
            if old is None:
                found.append(FileChange(path, "created"))
            elif new is None:
                found.append(FileChange(path, "deleted"))
            elif not new[2] and old != new:
                found.append(FileChange(path, "changed"))
        return WorldChanges(tuple(found))

    def remove(self) -> None:
        """Throw the sandbox away, unless it is kept (for debugging: its path is said on
        stderr)."""
        if self.keep:
            print(f"orav: the app's sandbox is kept: {self.root}", file=sys.stderr)
        else:
            shutil.rmtree(self.root, ignore_errors=True)

    def _bring(self, name: str) -> None:
        """Copy a file (or folder) the app needs: ``~/x`` into the sandbox's home, a path of
        the working folder (one the copy skipped) into ``work``."""
        if name.startswith("~/"):
            origin, target = Path(name).expanduser(), self.root / HOME / name[2:]
        else:
            origin = (self.source / name).resolve()
            try:
                target = self.work / origin.relative_to(self.source)
            except ValueError:
                raise InputError(
                    f"{name}: the sandbox holds files of the working folder or ~/ only",
                    "files",
                ) from None
        if not origin.exists():
            raise InputError(f"{name}: no such file to copy into the sandbox", "files")
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            _copy_tree(origin, target, set())
        else:
            shutil.copy2(origin, target)

    def _snapshot(self) -> dict[str, Stat]:
        seen: dict[str, Stat] = {}
        for path, info in _walk(self.root, MAX_WATCHED):
            relative = path.relative_to(self.root).as_posix()
            folder = stat.S_ISDIR(info.st_mode)
            seen[relative + "/" if folder else relative] = (info.st_size, info.st_mtime_ns, folder)
        return seen


def _walk(root: Path, limit: int) -> Iterator[tuple[Path, os.stat_result]]:
    """Every entry under ``root`` (not following links), at most ``limit``, breadth first."""
    folders, count = [root], 0
    while folders:
        folder = folders.pop(0)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            count += 1
            if count > limit:
                return
            yield Path(entry.path), info
            if stat.S_ISDIR(info.st_mode):
                folders.append(Path(entry.path))


def _skipped(folder: Path, skip: set[Path]) -> bool:
    return (
        folder.name in SKIPPED_NAMES
        or (folder / "pyvenv.cfg").is_file()
        or (folder / "CACHEDIR.TAG").is_file()
        or folder.resolve() in skip
    )


def _copy_tree(source: Path, target: Path, skip: set[Path]) -> None:
    """Copy ``source`` into ``target`` within the bounds; links are copied as links."""
    files = size = 0
    for folder, names, filenames in os.walk(source):
        here = Path(folder)
        names[:] = sorted(n for n in names if not _skipped(here / n, skip))
        there = target / here.relative_to(source)
        there.mkdir(parents=True, exist_ok=True)
        for name in sorted(filenames):
            origin = here / name
            try:
                info = origin.lstat()
            except OSError:
                continue
            files += 1
            size += info.st_size if stat.S_ISREG(info.st_mode) else 0
            if files > MAX_FILES or size > MAX_BYTES:
                raise InputError(
                    f"{source} holds more than {MAX_FILES} files or {MAX_BYTES >> 20} MB "
                    "(not counting .git, virtualenvs, caches and orav's output): too much to "
                    "copy into the app's sandbox; run orav from the app's own folder",
                    "sandbox",
                )
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(origin), there / name)
            elif stat.S_ISREG(info.st_mode):
                shutil.copy2(origin, there / name)


@functools.cache
def network_namespace() -> tuple[str, ...] | None:
    """The command prefix that runs a program in a new network namespace without privileges
    (util-linux ``unshare`` in a user namespace), or None where the OS refuses; probed once."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for mapping in ("--map-current-user", "--map-root-user"):
        prefix = (unshare, "--net", mapping)
        try:
            done = subprocess.run(
                [*prefix, "--", "true"], capture_output=True, timeout=PROBE_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return None


def namespace_refusal() -> str:
    """Why no network namespace can be made here, in a few words."""
    if shutil.which("unshare") is None:
        return "this system has no unshare (network namespaces are Linux's)"
    return "the OS refuses an unprivileged network namespace (user namespaces are disabled)"


MARK = "ORAV_WORLD"  # set in the environment of an app orav starts: its descendants inherit it


def new_mark() -> str:
    """A mark for one launch of an app, unique to it."""
    return f"{os.getpid()}-{os.urandom(8).hex()}"


def kill_marked(mark: str) -> int:
    """Kill (SIGKILL) every process whose environment holds ``MARK=mark``: what an app started,
    even when it forked twice and left its session (a process group does not hold those).
    Linux reads /proc; elsewhere the process group is all there is. Returns how many."""
    wanted = f"{MARK}={mark}".encode()
    killed = 0
    for _ in range(3):  # a process may fork while the others are killed
        found = [pid for pid in _pids() if pid != os.getpid() and _marked(pid, wanted)]
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        if not found:
            break
    return killed


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _marked(pid: int, wanted: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return wanted in environ.read().split(b"\0")
    except OSError:
        return False


PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphans below this process are re-parented to it


class Brood:
    """The processes an app running in orav's own process starts (the in-process Textual
    driver): ``Brood.start()`` as the app starts, ``end()`` as it ends kills them with their
    descendants. Forks of orav's process carry no mark (a fork without exec keeps the
    environment it was exec'd with), so they are known by ancestry: while a brood is open orav
    is a child subreaper (Linux), and an orphan below it, however it detached (a double fork,
    setsid), comes back to it as a child; its children that were not there at the start are
    the app's. Elsewhere only those still its children are found."""

    _open = 0  # broods open in this process: the subreaper stays while any is

    def __init__(self, before: set[int]) -> None:
        self.before = before
        self.ended = False

    @classmethod
    def start(cls) -> Brood:
        if cls._open == 0:
            _subreaper(True)
        cls._open += 1
        return cls(set(_children()))

    def end(self) -> int:
        """Kill (SIGKILL) and reap what the app started; how many. Once."""
        if self.ended:
            return 0
        self.ended = True
        killed = 0
        for _ in range(3):  # a process may fork while the others are killed
            found = _descendants(set(_children()) - self.before)
            for pid in found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
            for pid in found:  # ours (orphans come back to us): reaped, no zombie left
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, 0)
            if not found:
                break
        Brood._open -= 1
        if Brood._open == 0:
            _subreaper(False)
        return killed


def _subreaper(on: bool) -> None:
    if sys.platform != "linux":
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)


def _parents() -> dict[int, int]:
    """Every process's parent (zombies too: they are reaped), read from /proc (empty where
    there is none)."""
    parents = {}
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat_file:
                fields = stat_file.read().rsplit(b")", 1)[-1].split()
        except OSError:
            continue
        if len(fields) > 1:  # after the name: state, parent
            parents[pid] = int(fields[1])
    return parents


def _children() -> list[int]:
    me = os.getpid()
    return [pid for pid, parent in _parents().items() if parent == me]


def _descendants(roots: set[int]) -> list[int]:
    """``roots`` and every process below them."""
    parents = _parents()
    found, frontier = set(roots), set(roots)
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return sorted(found)
