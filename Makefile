# The two commands of the README: `make demo` (the main job on the simulated robot) and `make test` (everything).
# Both bootstrap a local .venv (and, for the tests, Node with the MicroPython WebAssembly port) on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
CHROMIUM_STAMP := $(VENV)/.chromium
PYTEST_ARGS ?=

.PHONY: demo test check lint typecheck pytest setup clean test-slow test-long test-vpico test-all arm-pictures

# Always the simulator and the shipped robot, whatever `hanoibot init`, HANOIBOT_PORT or HANOIBOT_CONFIG say: the
# demo never moves a real arm (a real arm moves only on a command that names or remembers its port).
demo: $(PY_STAMP)
	$(BIN)/hanoibot run -n 4 --port sim:// --config hardware/robot.toml

# The README's test command: lint, types, every test not marked slow, and the virtual Pico's covering set (a boot, a
# rail loss, the two simulators agreeing, a host killed mid-carry, a person's pace). CI runs it, then test-long and
# test-vpico: every test.
test: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP) lint typecheck pytest

# The fast loop while working: lint, types and every test not marked slow, without the virtual Pico.
check: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP) lint typecheck
	$(BIN)/pytest -n 2 -m "not slow and not vpico" $(PYTEST_ARGS)

lint: $(PY_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(PY_STAMP)
	$(BIN)/mypy

# The virtual Pico on chip time runs the same on a loaded machine, so those tests run in parallel (a module's tests
# on one worker: they share its boards); the few in real time (a host on the wall clock behind a pty) run alone, last.
VPICO_PARALLEL := -n 2 --dist loadfile
pytest: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)
	$(BIN)/pytest -n 2 -m "not slow and not vpico" $(PYTEST_ARGS)
	$(BIN)/pytest $(VPICO_PARALLEL) -m "vpico_cover and not vpico_realtime" $(PYTEST_ARGS)
	$(BIN)/pytest -p no:xdist -m "vpico_cover and vpico_realtime" $(PYTEST_ARGS)

# The long tests: test-long (7- and 8-disk runs, a person's pace on the emulated board, the CPython recovery matrix,
# the campaign, the console's recoveries) and test-vpico (the rest of the virtual Pico: its whole recovery matrix,
# kills mid-carry, randomized worlds). Together with make test (make test-all) every test runs; CI runs them all.
test-slow: test-long test-vpico

test-long: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)
	$(BIN)/pytest -n 2 -m "slow and not vpico" $(PYTEST_ARGS)

test-vpico: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)
	$(BIN)/pytest $(VPICO_PARALLEL) -m "vpico and not vpico_cover and not vpico_realtime" $(PYTEST_ARGS)
	$(BIN)/pytest -p no:xdist -m "vpico and not vpico_cover and vpico_realtime" $(PYTEST_ARGS)

test-all: test test-slow

setup: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)

# The README's picture of each arm preset (docs/arms/*.svg), drawn again by `hanoibot render` after the arm, the
# board or the drawing changed (tests/cli/test_readme_arms.py says when they no longer match).
arm-pictures: $(PY_STAMP)
	$(BIN)/python tools/draw_arms.py

$(PY_STAMP): pyproject.toml
	$(PYTHON) tools/check_python.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,deploy]'
	touch $@

# The browser tests (tests/console) drive the system Chromium through Playwright.
$(CHROMIUM_STAMP): $(PY_STAMP)
	sh tools/ensure_chromium.sh
	touch $@

$(NODE_STAMP): package.json
	sh tools/ensure_node.sh
	npm install --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis
