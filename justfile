# Everyday recipes. `pip install rust-just` provides `just`; each recipe is a plain command too.

venv := ".venv"

# Set up the virtual environment with the dev tools.
setup:
    python3 -m venv {{venv}}
    {{venv}}/bin/pip install -q -e '.[dev]'

# The whole story on the embedded simulator: record, replay, report.
demo:
    {{venv}}/bin/orav demo

# The test suite (what CI runs), on every core.
test *args:
    {{venv}}/bin/pytest -n auto {{args}}

# Lint, format and type check.
lint:
    {{venv}}/bin/ruff check .
    {{venv}}/bin/ruff format --check .
    {{venv}}/bin/mypy

# Format the code.
fmt:
    {{venv}}/bin/ruff check --fix .
    {{venv}}/bin/ruff format .

# Benchmarks; figures go into docs/performance.md.
bench:
    {{venv}}/bin/python -m bench

# Regenerate the generated docs: state-machine diagrams, the CLI and the API reference.
docs:
    {{venv}}/bin/orav diagrams --out docs/machines.md
    {{venv}}/bin/python -c "from orav.cli.reference import cli_reference; print(cli_reference(), end='')" > docs/cli.md
    {{venv}}/bin/python -m orav.api_reference > docs/api.md
    {{venv}}/bin/python tests/test_architecture.py

# Re-record the golden cassettes after a deliberate change of behaviour.
golden:
    for s in orav/scenarios/*.yaml; do {{venv}}/bin/orav record "$s" --overwrite; done
    for s in orav/scenarios/faults/*.yaml; do {{venv}}/bin/orav record "$s" --overwrite --out "recordings/recovery/$(basename "$s" .yaml).cassette"; done
    for s in orav/scenarios/textual/*.yaml; do {{venv}}/bin/orav record "$s" --device textual:orav.demo_tui:DemoApp --overwrite --out "recordings/textual/$(basename "$s" .yaml).cassette"; done
    for s in orav/scenarios/planner/*.yaml; do {{venv}}/bin/orav record "$s" --device "textual:$(sed -n 's/^app: //p' "$s")" --overwrite --out "recordings/planner/$(basename "$s" .yaml).cassette"; done
    for s in orav/scenarios/shop/*.yaml; do {{venv}}/bin/orav record "$s" --overwrite --out "recordings/shop/$(basename "$s" .yaml).cassette"; done
    rm -f recordings/*.html recordings/*/*.html
