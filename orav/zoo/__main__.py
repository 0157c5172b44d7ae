"""``python -m orav.zoo TASK``: serve a zoo model on loopback until interrupted.

    python -m orav.zoo login --rate 0.3 --seed 1 --mistakes prose,loop
    orav replay run.cassette --agent openai:zoo-vision --base-url http://127.0.0.1:PORT/v1

``--mistakes-file FILE`` adds template mistakes from a YAML or JSON list (``Mistake.from_dict``;
``orav/zoo/wild.yaml`` is one).
Bad arguments are one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from orav.errors import InputError
from orav.zoo.mistakes import MISTAKES, Mistake, load_mistakes
from orav.zoo.player import Player
from orav.zoo.server import ZooServer
from orav.zoo.tasks import tasks


def _mistakes(names: str, file: str | None) -> list[Mistake]:
    chosen = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        if name not in MISTAKES:
            raise InputError(
                f"unknown mistake {name!r}; known: {', '.join(MISTAKES)}", "--mistakes"
            )
        chosen.append(MISTAKES[name])
    if file is not None:
        chosen += load_mistakes(Path(file))
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orav.zoo", description=__doc__.split("\n")[0])
    parser.add_argument("task", choices=sorted(tasks()), help="the task the model plays")
    parser.add_argument("--rate", type=float, default=0.0, help="share of answers with a mistake")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--mistakes", default="", help="comma-separated kinds: " + ", ".join(MISTAKES)
    )
    parser.add_argument("--mistakes-file", help="a YAML or JSON list of template mistakes")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        if not 0.0 <= args.rate <= 1.0:
            raise InputError("must be 0 to 1", "--rate")
        mistakes = _mistakes(args.mistakes, args.mistakes_file)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    task = tasks()[args.task]
    player = Player(
        task.policy, mistakes=mistakes, rate=args.rate, seed=args.seed, secrets=task.secrets
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())  # also where a shell ignored it
    with ZooServer(player, port=args.port) as zoo:
        print(f"zoo: {args.task} at {zoo.url} (Ctrl-C to stop)", flush=True)
        while not stop.wait(0.5):
            pass
    tally = player.tally
    print(
        f"zoo: {tally.requests} requests, {tally.reasks} re-asks, {tally.secrets_seen} secrets seen"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
