"""Decision regression: which candidate decisions count as the recorded one."""

from orav.cassette import same_action
from orav.model import Done, Point, Swipe, Tap, Target, TypeText


def test_done_is_judged_by_its_verdict_not_its_prose():
    assert same_action(Done(True, "Signed in."), Done(True, "I am on the home screen now"))
    assert not same_action(Done(True), Done(False))


def test_taps_compare_targets_first_then_coordinates_within_tolerance():
    assert same_action(Tap(target=Target(id="email")), Tap(x=1, y=2, target=Target(id="email")))
    assert not same_action(Tap(target=Target(id="email")), Tap(target=Target(id="password")))
    assert same_action(Tap(x=100, y=200), Tap(x=108, y=195))
    assert not same_action(Tap(x=100, y=200), Tap(x=120, y=200))


def test_typed_secrets_match_their_redacted_recording():
    assert same_action(TypeText("••••••", secure=True), TypeText("hunter22", secure=True))
    assert not same_action(TypeText("a"), TypeText("b"))


def test_other_actions_compare_whole_and_kinds_must_agree():
    swipe = Swipe(Point(10, 400), Point(300, 400))
    assert same_action(swipe, Swipe(Point(10, 400), Point(300, 400)))
    assert not same_action(swipe, Swipe(Point(10, 400), Point(200, 400)))
    assert not same_action(swipe, Done())
