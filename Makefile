# One-command set-up: `make run` (the main job) and `make test` (the test suite) both create the
# virtual environment in .venv on first use, with the CPU build of torch pinned by constraints.txt.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: setup run test test-slow lint bench

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -c constraints.txt -e ".[dev]"
	touch $@

run: setup
	$(BIN)/qizero serve

# The suite runs in TEST_WORKERS processes (pytest-xdist), each taking whole test files, so a
# module's fixtures are built once; each process gets a PostgreSQL database of its own
# (tests/conftest.py). TEST_WORKERS=0 runs it in this process.
# pytest exits 5 when a selection ran no test; that is not a failure here.
TEST_WORKERS ?= 2
test: setup
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then exit 0; else exit $$rc; fi

test-slow: setup
	$(BIN)/pytest -q -m slow $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check .
