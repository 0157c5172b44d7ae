"""pytest plugin (the ``orav`` entry point): UAT fixtures for Textual apps, the ``live_ai``
marker, and golden cassettes as tests.

Fixtures (the app is ``orav_app`` in the ini file or ``--orav-app``, ``package.module:AppClass``;
docs/textual.md shows a whole test):

- ``uat_app``: the app under test, built fresh for the test; an app whose constructor takes a
  ``database`` gets one in the test's temporary folder. ``@pytest.mark.uat_app(seed="demo")``
  passes more keyword arguments.
- ``uat_driver``: runs scenarios on that app (in a terminal of ``orav_size``, 80x24 unless set)
  with a deterministic agent: the scenario's script, or a function that decides (``agent=``).
  A test marked ``live_ai``, or any test under ``--orav-live-ai`` / ``ORAV_LIVE_AI=1``, gets
  the live agent instead.
- ``live_uat_driver``: the same with the OpenAI-compatible agent from the environment
  (``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``, model ``ORAV_MODEL``); the test is skipped, with
  the reason, when no credentials are set.

Golden cassettes: ``pytest --orav-cassettes recordings/`` (or ``orav_cassettes = recordings``
in the ini file) makes each ``*.cassette`` under those folders one test item, ``replay``, that
passes when the replay is faithful and the recorded run passed (a failed or aborted recording
is no golden). With ``--orav-live`` each is rerun live on ``--orav-device`` instead
(``orav.golden.rerun``): the app itself is tested.

Scenarios as tests, in pytest-recording's terms (docs/goldens.md): a test marked
``@pytest.mark.orav(scenario="scenarios/login.yaml")`` runs that scenario with its cassette
named after the test, ``cassettes/{module}/{test}.cassette`` beside the test file (the
``orav_cassette_dir`` and ``orav_cassette_name`` fixtures), in ``--orav-record-mode``
(``orav_record_mode`` in the ini file): ``none`` (the default: replay, fail without a cassette),
``once``, ``new_episodes``, ``all`` (as vcrpy) or ``rerun`` (live, as ``--orav-live``).
``--orav-repeat N`` reruns N times: pass@k, and a test that passes only some of the times is
reported flaky (a JUnit property), not failed. The ``orav`` fixture gives the outcome.
``--orav-regression-check PATH`` (``orav_regression_check``, or the marker's
``regression_check=``): once a marked test's live run reaches its goal, the passing flows of its
app under PATH are rerun live (``orav.regression_check``); one that regressed fails the test.

Each part is a plugin module of its own, registered with this one; each adds its options to
the ``orav`` group.
"""

# A module that another imports comes before it: pytest warns of a plugin imported early.
pytest_plugins = [
    "orav.pytest_plugin.live_ai",
    "orav.pytest_plugin.uat",
    "orav.pytest_plugin.verdict",
    "orav.pytest_plugin.cassettes",
    "orav.pytest_plugin.marked",
]
