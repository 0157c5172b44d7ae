"""The zoo: simulated models that play orav's tasks with the mistakes real models make.

A loopback OpenAI-compatible server (``ZooServer``) answers each request as a ``Player``: a
task's goal-directed policy (``orav.zoo.policy``) with mistakes (``orav.zoo.mistakes``) at a
rate, seeded and reproducible. The LLM agent talks to it with the real ``openai`` client, so
its robustness is a number measured on every commit (``bench/agent_zoo.py``, ``tests/test_zoo.py``).
"""

from orav.zoo.mistakes import FAMILIES, MISTAKES, WILD, Mistake, load_mistakes
from orav.zoo.player import Player, Tally
from orav.zoo.server import ZooServer
from orav.zoo.tasks import Outcome, Task, tasks

__all__ = [
    "FAMILIES",
    "MISTAKES",
    "WILD",
    "Mistake",
    "Outcome",
    "Player",
    "Tally",
    "Task",
    "ZooServer",
    "load_mistakes",
    "tasks",
]
