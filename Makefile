# The two commands of the README: `make demo` (the main job on the simulated robot) and `make test` (everything).
# Both bootstrap a local .venv (and, for the tests, Node with the MicroPython WebAssembly port) on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
CHROMIUM_STAMP := $(VENV)/.chromium
PYTEST_ARGS ?=

.PHONY: demo test check lint typecheck pytest setup clean test-slow test-long test-vpico test-all test-vpico-matrix

demo: $(PY_STAMP)
	$(BIN)/hanoibot run -n 4

# The README's test command: lint, types, every test not marked slow, and the virtual Pico's covering set (a boot,
# a noisy run, a rail loss, a person's pace): about 6 minutes on 2 cores once set up. CI runs it, then test-long.
test: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP) lint typecheck pytest

# The fast loop while working: lint, types and every test not marked slow, without the virtual Pico.
check: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP) lint typecheck
	$(BIN)/pytest -n 2 -m "not slow and not vpico" $(PYTEST_ARGS)

lint: $(PY_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(PY_STAMP)
	$(BIN)/mypy

# The virtual-Pico tests run after the parallel run, one at a time, so the emulated chip has a core to itself.
pytest: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)
	$(BIN)/pytest -n 2 -m "not slow and not vpico" $(PYTEST_ARGS)
	$(BIN)/pytest -p no:xdist -m "vpico_cover" $(PYTEST_ARGS)

# The long tests (about 33 minutes on 2 cores): test-long (about 12: 7- and 8-disk runs, a person's pace on the
# emulated board, the CPython recovery matrix, the campaign, the console's recoveries) and test-vpico (about 21: the
# rest of the virtual Pico, one at a time). Together with make test (make test-all) every test runs but the virtual
# Pico's full matrix.
test-slow: test-long test-vpico

test-long: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)
	$(BIN)/pytest -n 2 -m "slow and not vpico" $(PYTEST_ARGS)

test-vpico: $(PY_STAMP) $(NODE_STAMP)
	$(BIN)/pytest -p no:xdist -m "vpico and not vpico_cover and not vpico_matrix" $(PYTEST_ARGS)

test-all: test test-slow

# The whole recovery matrix on the virtual Pico (32 cells, about 6 minutes; make test runs a covering set of it), and
# the smoke run, intermittent still (see its module).
test-vpico-matrix: $(PY_STAMP) $(NODE_STAMP)
	$(BIN)/pytest -p no:xdist -m vpico tests/hil/test_recovery_matrix_vpico.py tests/hil/test_vpico_smoke.py $(PYTEST_ARGS)

setup: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM_STAMP)

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
