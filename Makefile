# The README's two commands: `make demo` and `make test`. Both create/refresh .venv first, from
# the committed lock files (requirements/): the same versions on every machine. `make lock`
# regenerates them; `make test-latest` tries the newest versions pyproject.toml allows.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Everything `make test` needs (runtime + the dev, inspect, ray, openai-agents and langgraph extras); `make demo` needs
# only the runtime set (requirements/runtime.txt, the same versions).
LOCK := requirements/lock.txt
RUNTIME_LOCK := requirements/runtime.txt
STAMP := $(VENV)/.installed-lock
RUNTIME_STAMP := $(VENV)/.installed-runtime
# uv resolves the lock (`make lock` only); pip installs from it. Pinned, like everything else.
UV_VERSION := 0.13.9
# What each lock file covers: the extras below, for Python 3.11, on every platform (--universal).
LOCK_EXTRAS := --extra dev --extra inspect --extra ray --extra openai-agents --extra langgraph
UV_COMPILE := uv pip compile pyproject.toml requirements/build.in --python-version 3.11 \
	--universal --generate-hashes --quiet
export LITELLM_LOCAL_MODEL_COST_MAP := True
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: venv demo demo-tau-bench docs-figures test test-steps lint typecheck unit notebooks \
	notebooks-execute notebooks-sync bench clean lock test-latest

# Notebooks are pairs: notebooks/NN_name.py (jupytext percent format: the reviewed, linted
# source) and NN_name.ipynb (the same cells with their outputs, checked by nbval).
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.py))
# The experiments the notebooks run (experiments/notebooks.yaml, experiments/your_agent/);
# started afresh for a check.
NOTEBOOK_RESULTS := results/notebooks results/your_agent results/adder

# Every pinned, hashed distribution of the lock; then the project itself, editable, built with
# the lock's setuptools (no build isolation: nothing is fetched outside the lock).
$(STAMP): $(LOCK) pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@ $(RUNTIME_STAMP)

$(RUNTIME_STAMP): $(RUNTIME_LOCK) pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(RUNTIME_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

venv: $(STAMP)

demo: $(RUNTIME_STAMP)
	$(BIN)/reliability-lab run experiments/demo.yaml
	$(BIN)/reliability-lab figures results/demo --output results/demo/figures
	@echo "Paper figures (PDF and PNG): results/demo/figures/"

# The three PNGs under docs/figures/ shown by the README and docs/figures.md (after `make demo`).
docs-figures: $(RUNTIME_STAMP)
	$(BIN)/python tools/docs_figures.py results/demo docs/figures

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Two steps: everything but Ray on both cores, then the Ray tests alone (Ray gives its node's
# processes fixed start-up windows that a machine busy with other tests can miss).
unit: $(STAMP)
	$(BIN)/pytest -n 2 --dist loadgroup -m "not ray" --durations=15 tests reliability_lab
	$(BIN)/pytest -p no:xdist -m ray --durations=3 tests

notebooks: $(STAMP)
	rm -rf $(NOTEBOOK_RESULTS)
	env -u MPLBACKEND $(BIN)/pytest -p no:xdist --nbval --nbval-current-env \
		--nbval-sanitize-with notebooks/sanitize.cfg $(NOTEBOOKS:.py=.ipynb)

# The README's test command; prints its own wall time (and pytest the slowest 15 tests).
test:
	@start=$$(date +%s); $(MAKE) --no-print-directory test-steps; status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s wall, exit status $$status"; exit $$status

test-steps: lint typecheck unit notebooks

# Regenerate both lock files from pyproject.toml's ranges after changing a dependency (pins that
# still fit are kept); `make lock UPGRADE=--upgrade` takes the newest releases the ranges allow.
# Widen a range only once `make test-latest` passed with the newer versions.
UPGRADE ?=
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "uv==$(UV_VERSION)"
	PATH="$(CURDIR)/$(BIN):$$PATH" $(UV_COMPILE) $(LOCK_EXTRAS) $(UPGRADE) -o $(LOCK)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(UV_COMPILE) -c $(LOCK) -o $(RUNTIME_LOCK)

# Not part of `make test`: the newest versions pyproject.toml allows, in .venv-latest; writes
# the result and the versions it used to docs/test-latest.md.
test-latest:
	$(PYTHON) tools/test_latest.py

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_metrics.py

clean:
	rm -rf $(VENV) .venv-latest .mypy_cache .pytest_cache .ruff_cache

# After editing a notebook's .py: rebuild each .ipynb from its .py, format it, re-execute it
# (fresh shared experiment) and write the formatted cells back to the .py. Commit both files.
notebooks-execute: $(STAMP)
	rm -rf $(NOTEBOOK_RESULTS)
	$(BIN)/jupytext --quiet --to ipynb --update $(NOTEBOOKS)
	$(BIN)/ruff format --quiet $(NOTEBOOKS:.py=.ipynb)
	env -u MPLBACKEND $(BIN)/jupyter nbconvert --log-level WARN --to notebook --execute \
		--inplace --ExecutePreprocessor.timeout=600 $(NOTEBOOKS:.py=.ipynb)
	$(BIN)/jupytext --quiet --to py:percent $(NOTEBOOKS:.py=.ipynb)

# After editing a notebook in JupyterLab without jupytext: bring each pair in sync (the file
# changed last wins).
notebooks-sync: $(STAMP)
	$(BIN)/jupytext --sync $(NOTEBOOKS)

# The metrics walk-through on bundled real data (τ-bench GPT-4o airline).
demo-tau-bench: $(RUNTIME_STAMP)
	$(BIN)/python -m reliability_lab.demo
