"""Memory at length (issue 29): peak RSS of a long run, a long exploration and `orav report`.

Each figure is one `orav` command in a child process of its own, its peak resident set read
from the kernel when it exits (``os.wait4``'s ``ru_maxrss``):

- *run*: ``orav record`` of Tally (docs/examples/tally) with an agent that taps "Add one" until
  the counter shows N: a new screen, and a new screenshot in the cassette, at every step (the
  worst case for a report that keeps each screen once), then the HTML report written;
- *explore*: ``orav explore`` of a generated 150-screen app (bench/sim_appmodel.py's) with a
  budget of N steps (it may finish first: the steps taken are printed);
- *report*: ``orav report --html DIR --junit FILE`` over K copies of a recorded run.

Targets: 10,000 steps under 300 MB; ``orav report`` over 1,000 runs under 100 MB.

``--trace`` runs the one command given in-process under tracemalloc instead and prints what
grew from a third of the steps to the last (who keeps what as the run goes on: by line of
allocation and by type of object) and which lines hold the most at the end, e.g.
``python bench/memory.py --trace explore 600``; ``--split`` the same without tracemalloc (the
RSS at every tenth of the steps, the peak before the report and at the end, undisturbed).

Run: .venv/bin/python bench/memory.py [run|explore|report] [N ...]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from sim_appmodel import generated_app

AGENT = "class:counting:Counting?total={n}"
STEPS = (100, 1_000, 10_000)
RUNS = (100, 1_000)

COUNTING = '''
from orav import AgentContext, Decision, Done, Tap, Target


class Counting:
    """Taps "Add one" until the counter shows ``total`` (a new screen every step)."""

    name = "counting"

    def __init__(self, total: str) -> None:
        self.total = int(total)

    async def decide(self, context: AgentContext) -> Decision:
        if context.step > self.total:
            return Decision(Done(success=True), reasoning="counted")
        return Decision(Tap(target=Target(id="add")), reasoning="one more")
'''

# A Textual app of words no code knows: a pot whose count goes up on a button (a new screen
# every step) and a page pushed on a key and popped on escape (screens made and let go).
KETTLE = """
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Button, Footer, Label


class Rezept(Screen):
    BINDINGS = [("escape", "app.pop_screen", "Zurueck")]

    def compose(self) -> ComposeResult:
        yield Label("Wasser, Blaetter, Geduld", id="zutaten")
        yield Footer()


class Kettle(App):
    BINDINGS = [("r", "push_screen('rezept')", "Rezept")]
    SCREENS = {"rezept": Rezept}

    def compose(self) -> ComposeResult:
        yield Label("Tassen: 0", id="tassen")
        yield Button("Aufgiessen", id="aufgiessen")
        yield Footer()

    def on_button_pressed(self) -> None:
        label = self.query_one("#tassen", Label)
        label.update(f"Tassen: {int(str(label.content).split()[-1]) + 1}")
"""

POURING = '''
from orav import AgentContext, Decision, Done, PressKey, Tap, Target


class Pouring:
    """Pours until step ``total``; every tenth step opens the recipe, the next closes it."""

    name = "pouring"

    def __init__(self, total: str) -> None:
        self.total = int(total)

    async def decide(self, context: AgentContext) -> Decision:
        if context.step > self.total:
            return Decision(Done(success=True), reasoning="poured")
        if context.step % 10 == 9:
            return Decision(PressKey("r"), reasoning="the recipe")
        if context.step % 10 == 0:
            return Decision(PressKey("escape"), reasoning="back to the pot")
        return Decision(Tap(target=Target(id="aufgiessen")), reasoning="one more cup")
'''

SCENARIO = """name: count
app: {app}
goal: Count up.
max_steps: {steps}
timeout_seconds: 86400
settle_seconds: 0
success_criteria:
  - {{target: {{id: {shown}}}, condition: visible}}
"""


def orav() -> list[str]:
    return [sys.executable, "-m", "orav"]


def command(kind: str, n: int, folder: Path) -> list[str]:
    """The orav command of one figure, its inputs written to ``folder``."""
    if kind == "run":
        (folder / "counting.py").write_text(COUNTING)
        scenario = folder / "count.yaml"
        scenario.write_text(SCENARIO.format(steps=n + 1, app="com.example.tally", shown="total"))
        tally = ROOT / "docs" / "examples" / "tally" / "app.yaml"
        return [
            *orav(),
            "record",
            str(scenario),
            "--device",
            f"sim:{tally}",
            "--agent",
            AGENT.format(n=n),
            "--out",
            str(folder / "count.cassette"),
            "-q",
        ]
    if kind == "textual":
        (folder / "kettle.py").write_text(KETTLE)
        (folder / "pouring.py").write_text(POURING)
        scenario = folder / "pour.yaml"
        scenario.write_text(SCENARIO.format(steps=n + 1, app="kettle", shown="tassen"))
        return [
            *orav(),
            "record",
            str(scenario),
            "--device",
            "textual-in-process:kettle:Kettle",
            "--agent",
            f"class:pouring:Pouring?total={n}",
            "--out",
            str(folder / "pour.cassette"),
            "-q",
        ]
    if kind == "explore":
        app = folder / "big.yaml"
        app.write_text(generated_app(150))
        return [
            *orav(),
            "explore",
            "--device",
            f"sim:{app}",
            "--max-steps",
            str(n),
            "--timeout",
            "86400",
            "--out",
            str(folder / "big.cassette"),
            "-q",
        ]
    source = ROOT / "recordings" / "submit_form.cassette"
    runs = folder / "runs"
    runs.mkdir()
    for i in range(n):
        shutil.copyfile(source, runs / f"run{i:05d}.cassette")
    return [
        *orav(),
        "report",
        *sorted(str(p) for p in runs.iterdir()),
        "--html",
        str(folder / "html"),
        "--junit",
        str(folder / "junit.xml"),
    ]


def measure(kind: str, n: int) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        argv = command(kind, n, folder)
        started = time.perf_counter()
        child = subprocess.Popen(
            argv, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        out = child.stdout.read() if child.stdout else ""
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        cpu = usage.ru_utime + usage.ru_stime
        taken = ""
        if kind != "report":
            cassette = next(folder.glob("*.cassette"), None)
            if cassette is not None:
                steps = sum(1 for line in cassette.open() if line.startswith('{"type":"step"'))
                size = cassette.stat().st_size / 1e6
                taken = f", {steps} steps taken, cassette {size:.1f} MB"
        print(
            f"{kind} {n}: peak RSS {usage.ru_maxrss / 1024:.0f} MB, CPU {cpu:.1f} s, "
            f"wall {wall:.0f} s, exit {child.returncode}{taken}",
            flush=True,
        )
        if child.returncode not in (0, 1):
            print(out[-2000:])


def trace(kind: str, n: int, traced: bool = True) -> None:
    """Run one figure's command in this process; print the peak RSS before the report and at
    the end. ``traced``: under tracemalloc, with what grew from step ~n/3 to step ~n (the
    engine's settles counted as steps) by line of allocation and by type of object kept, and
    which lines hold the most at step ~n; else (undisturbed) the RSS at every tenth of the steps."""
    import gc
    import resource
    import tracemalloc
    from collections import Counter

    from click.testing import CliRunner

    from orav import engine
    from orav.cli import cli
    from orav.report import html

    def kinds() -> Counter[str]:
        gc.collect()
        return Counter(type(o).__name__ for o in gc.get_objects())

    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        argv = command(kind, n, folder)[3:]
        os.chdir(folder)
        sys.path.insert(0, str(folder))
        if traced:
            tracemalloc.start(8)
        rss: list[float] = []
        snapshots: list[tuple[tracemalloc.Snapshot, Counter[str]]] = []
        write, settle, settles = html.write_html, engine.settle, [0]

        def held(*args: object, **kwargs: object) -> object:  # the report's start: the run's end
            if not rss:
                rss.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
            return write(*args, **kwargs)

        async def counted(*args: object, **kwargs: object) -> object:  # about once a step
            settles[0] += 1
            if traced and settles[0] in (n // 3, n):
                counted_kinds = kinds()  # garbage collected first: what is kept
                snapshots.append((tracemalloc.take_snapshot(), counted_kinds))
            if not traced and settles[0] % max(1, n // 10) == 0:
                print(f"step ~{settles[0]}: RSS now {_rss_now():.0f} MB", file=sys.__stderr__)
            return await settle(*args, **kwargs)

        html.write_html = held  # type: ignore[assignment]
        engine.settle = counted  # type: ignore[assignment]
        result = CliRunner().invoke(cli, argv, catch_exceptions=False)
        current, peak = tracemalloc.get_traced_memory()
        end = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"exit {result.exit_code}; traced now {current / 1e6:.1f} MB, peak {peak / 1e6:.1f} MB"
        )
        print(f"peak RSS before the report {rss[0] if rss else 0:.0f} MB, at the end {end:.0f} MB")
        if len(snapshots) < 2:
            return
        (early, before), (late, after) = snapshots
        print(f"-- at step ~{n}: top lines")
        for stat in late.statistics("lineno")[:15]:
            print(f"  {stat.size / 1e6:7.1f} MB {stat.count:8d}  {stat.traceback}")
        print(f"-- grown from step ~{n // 3} to step ~{n}: objects kept, by type")
        grown = Counter({name: count - before[name] for name, count in after.items()})
        print("  " + ", ".join(f"{name} {count:+d}" for name, count in grown.most_common(20)))
        print(f"-- grown from step ~{n // 3} to step ~{n}: top tracebacks")
        for diff in late.compare_to(early, "traceback")[:12]:
            print(f"  {diff.size_diff / 1e6:+7.2f} MB {diff.count_diff:+8d}")
            for line in diff.traceback.format()[-8:]:
                print(f"      {line}")


def _rss_now() -> float:
    """This process's resident set now, in MB (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def main() -> None:
    args = sys.argv[1:]
    if args[:1] in (["--trace"], ["--split"]):
        trace(args[1], int(args[2]), traced=args[0] == "--trace")
        return
    kinds = [a for a in args if not a.isdigit()] or ["run", "explore", "textual", "report"]
    sizes = [int(a) for a in args if a.isdigit()]
    for kind in kinds:
        for n in sizes or (RUNS if kind == "report" else STEPS):
            measure(kind, n)


if __name__ == "__main__":
    main()
