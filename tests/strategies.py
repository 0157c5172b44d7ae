"""Hypothesis strategies for orav's value types, shared by the codec and cassette tests."""

from hypothesis import strategies as st

from orav.model import (
    Assert,
    Credentials,
    Decision,
    Done,
    Fault,
    Launch,
    ModelCall,
    Point,
    PressKey,
    Scenario,
    Swipe,
    Tap,
    Target,
    Terminate,
    TypeText,
    Wait,
)
from orav.model.fault import INJECTED_FAULTS, MAX_STALL

# Free text never contains digits, spaces or colons, so it cannot look like an API key, a
# Bearer token or an Authorization header; secure values are digits only, so registering them
# as secrets never touches other text. Redaction of mixed text is tested separately below.
text = st.text(alphabet="abcdefXYZ_.éü漢•\u2028\"\\'\n", max_size=12)
secret_digits = st.text(alphabet="0123456789", min_size=1, max_size=10)
coordinate = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
positive = st.floats(min_value=0, max_value=1e3, allow_nan=False)

targets = st.builds(Target, label=text, id=st.none() | text)
actions = st.one_of(
    st.builds(Tap, x=coordinate, y=coordinate, target=st.none() | targets, duration=positive),
    st.builds(Tap, target=targets, vision=st.booleans()),
    st.builds(TypeText, text=text.filter(bool)),
    st.builds(TypeText, text=secret_digits, secure=st.just(True)),
    st.builds(
        Swipe,
        start=st.builds(Point, coordinate, coordinate),
        end=st.builds(Point, coordinate, coordinate),
    ),
    st.builds(PressKey, key=st.sampled_from(["return", "escape", "tab"]) | st.integers(1, 255)),
    st.builds(Wait, seconds=positive),
    st.builds(Launch, bundle_id=st.none() | text),
    st.builds(Terminate, bundle_id=st.none() | text),
    st.builds(
        Assert,
        target=targets,
        condition=st.sampled_from(["visible", "absent", "value_equals"]),
        value=st.none() | text,
    ),
    st.builds(Assert, claim=text.filter(str.strip), name=st.none() | text),
    st.builds(Done, success=st.booleans(), summary=text),
)
calls = st.builds(
    ModelCall,
    model=text,
    prompt_digest=st.text(alphabet="0123456789abcdef", max_size=16),
    raw_response=text,
    prompt_tokens=st.integers(0, 10**6),
    completion_tokens=st.integers(0, 10**6),
    latency_seconds=positive,
    attempts=st.integers(1, 5),
)
decisions = st.builds(
    Decision,
    action=actions,
    reasoning=text,
    element_label=st.none() | text,
    expected_outcome=text,
    previous_outcome_met=st.none() | st.booleans(),
    call=st.none() | calls,
)
faults = st.builds(
    Fault,
    type=st.sampled_from(INJECTED_FAULTS),
    at_step=st.none() | st.integers(1, 100),
    on_screen=st.none() | text,
    probability=st.floats(0, 1),
    times=st.integers(1, 5),
    duration=st.integers(0, 10),
    seconds=st.floats(0, MAX_STALL),
)
scenarios = st.builds(
    Scenario,
    name=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,11}", fullmatch=True),
    app=text.filter(str.strip),
    goal=text.filter(str.strip),
    description=text,
    preconditions=st.lists(actions, max_size=3).map(tuple),
    success_criteria=st.lists(actions.filter(lambda a: isinstance(a, Assert)), max_size=2).map(
        tuple
    ),
    max_steps=st.integers(1, 500),
    timeout_seconds=st.floats(min_value=1, max_value=1e3),
    settle_seconds=st.floats(min_value=0, max_value=60),
    script=st.lists(decisions, max_size=4).map(tuple),
    credentials=st.none() | st.builds(Credentials, text, secret_digits),
    permissions=st.sampled_from(["allow", "deny"]),
    faults=st.lists(faults, max_size=2).map(tuple),
)
