"""A scenario: the goal an agent pursues in one app, with its limits and optional script."""

from __future__ import annotations

from typing import Any, Literal

from attrs import field, frozen
from attrs.validators import optional

from orav.model.action import Action, Assert
from orav.model.decision import Decision
from orav.model.fault import Fault
from orav.model.limits import InvalidValue, at_least, at_most, file_name, not_blank


@frozen
class Credentials:
    """Test credentials for a login wall; the password is redacted wherever it is written."""

    username: str
    password: str = field(repr=False)


PERMISSIONS = ("photos", "camera", "contacts", "url", "location", "notification", "microphone")
ResetStep = Literal["keychain", "reinstall"]


def _permission_presets(_: Any, attribute: Any, value: dict[str, str]) -> None:
    for name, answer in value.items():
        if name not in PERMISSIONS:
            raise InvalidValue(
                attribute.name, f"unknown permission {name!r}; known are {PERMISSIONS}"
            )
        if answer not in ("allow", "deny"):
            raise InvalidValue(attribute.name, f"{name}: expected allow or deny, got {answer!r}")


@frozen
class LaunchOptions:
    """What the app is launched with: arguments (``-UITests``, ``1``) and environment."""

    arguments: tuple[str, ...] = ()
    environment: dict[str, str] = field(factory=dict)


@frozen
class NamedState:
    """A state of the app a scenario names (``logged_in``), as the seed's goal YAML uses them.

    ``check``: the assertions that hold while it is true (a success criterion ``{logged_in:
    true}`` is these; ``false`` negates a single one). ``reset``: the lifecycle steps that make
    it false before a run (a precondition ``{logged_in: false}``). ``setup``: the actions that
    make it true (a precondition ``{logged_in: true}``).
    """

    check: tuple[Assert, ...] = ()
    reset: tuple[ResetStep, ...] = ()
    setup: tuple[Action, ...] = ()


def _app_or_none(_: Any, attribute: Any, value: str) -> None:
    if value and not value.strip():
        raise InvalidValue(attribute.name, "an app is its bundle id or module:Class, not spaces")


def _file_names(_: Any, attribute: Any, value: tuple[str, ...]) -> None:
    for name in value:
        if not name.strip():
            raise InvalidValue(attribute.name, "a file path, got an empty one")


def _tag_names(_: Any, attribute: Any, value: tuple[str, ...]) -> None:
    for tag in value:
        if not tag or not all(c.isalnum() or c in "_-.:" for c in tag):
            raise InvalidValue(
                attribute.name, f"a tag is one word of letters, digits, _ - . or :, got {tag!r}"
            )


def _spec(_: Any, attribute: Any, value: str) -> None:
    if not value.strip() or value != value.strip():
        raise InvalidValue(attribute.name, f"a spec as --{attribute.name} takes it, got {value!r}")


MIN_TIMEOUT_SECONDS = 1.0


@frozen
class Scenario:
    """A goal in one app, the checks that say it was reached, its limits (steps, seconds),
    how the app is set up first and, optionally, a script (docs/scenarios.md)."""

    name: str = field(validator=file_name)
    # "": the device's only app (``orav.specs.resolve_app`` fills it in before a run)
    app: str = field(validator=_app_or_none)
    goal: str = field(validator=not_blank)
    description: str = ""
    preconditions: tuple[Action, ...] = ()
    success_criteria: tuple[Assert, ...] = ()
    max_steps: int = field(default=50, validator=[at_least(1), at_most(100_000)])
    # At least a second: a run cut before its machine has started leaves no final status, and
    # a cassette without one is refused (``timeout_seconds: 1e-300`` made such cassettes).
    timeout_seconds: float = field(
        default=120.0, validator=[at_least(MIN_TIMEOUT_SECONDS), at_most(7 * 86400)]
    )
    # None: wait for the app to be quiet (bounded by the timeout ladder); a number: a fixed wait.
    settle_seconds: float | None = field(
        default=None, validator=optional([at_least(0), at_most(60)])
    )
    script: tuple[Decision, ...] = ()
    credentials: Credentials | None = None
    # The answer to a permission dialog (tracking too); nothing said: refused, as orav grants
    # nothing the test did not ask for.
    permissions: Literal["allow", "deny"] = "deny"
    faults: tuple[Fault, ...] = ()
    install: str | None = None
    launch: LaunchOptions = LaunchOptions()
    grant: dict[str, str] = field(factory=dict, validator=_permission_presets)
    reset: tuple[ResetStep, ...] = ()
    states: dict[str, NamedState] = field(factory=dict)
    # Files the app needs in its sandbox beyond the working folder's copy: relative to the
    # working folder (one the copy skips) or ``~/...`` from the user's home (orav.sandbox).
    files: tuple[str, ...] = field(default=(), validator=_file_names)
    # ``orav record --tag smoke`` runs the scenarios tagged smoke (``--skip-tag`` leaves them out).
    tags: tuple[str, ...] = field(default=(), validator=_tag_names)
    # Where it runs and who judges its claims, as ``--device`` and ``--judge`` name them (a
    # flag wins over these, these over orav.toml); a path in either is relative to the file.
    device: str | None = field(default=None, validator=optional(_spec))
    judge: str | None = field(default=None, validator=optional(_spec))
    # The environment variables the file's ``${NAME}`` placeholders read (set by the loader):
    # their values are treated as secrets, scrubbed from cassettes and reports.
    variables: tuple[str, ...] = ()
