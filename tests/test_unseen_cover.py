"""Issue 22's proof on occlusion: Faraway's cookie banner covers the stay page's heart, its
least-consent answer 10 pt under the heart's centre. Explored 200 steps on an ``idb:``
companion, the banner goes away only by an answer to it, never by a tap aimed at the heart
that landed on the banner (a false recovery), and the heart is reached once it is free."""

from __future__ import annotations

import pytest
from unseen_apps.harness import FARAWAY, explore_model

from orav.cassette import read_cassette
from orav.cassette.events import ObserveEvent, PerformEvent
from orav.model import Tap


@pytest.mark.slow(reason="200 explorer steps on the Faraway model over fb-idb")
async def test_faraway_s_banner_is_answered_not_hit_by_a_retry_aimed_at_the_heart(tmp_path):
    cassette = tmp_path / "faraway.cassette"
    _, state = await explore_model(FARAWAY, "com.faraway.trips", cassette, 200)
    last, banner = None, False
    for event in read_cassette(cassette).events:
        if isinstance(event, PerformEvent):
            last = event.action
        elif isinstance(event, ObserveEvent) and event.observation is not None:
            shown = any(e.unique_id == "cookie_text" for e in event.observation.elements)
            if banner and not shown and isinstance(last, Tap) and last.target is not None:
                assert last.target.id != "fav", last
                assert last.target.label not in ("heart", "heart.fill"), last
            banner = shown
    assert state["consent"] in ("", "essentials")
    assert state["favourites"], "the heart under the banner was never tapped"
