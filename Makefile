# The README's two commands: `make demo` and `make test`. Both create/refresh .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export LITELLM_LOCAL_MODEL_COST_MAP := True
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: venv demo demo-tau-bench test lint typecheck unit notebooks notebooks-build bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,inspect,ray]"
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/reliability-lab run experiments/demo.yaml

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -n 2 --dist loadgroup tests reliability_lab

notebooks: $(STAMP)
	env -u MPLBACKEND $(BIN)/pytest -p no:xdist --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks

test: lint typecheck unit notebooks

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_metrics.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache

# Re-execute the notebooks from tools/notebook_sources.py (commit the outputs afterwards).
notebooks-build: $(STAMP)
	env -u MPLBACKEND $(BIN)/python tools/build_notebooks.py

# The metrics walk-through on bundled real data (τ-bench GPT-4o airline).
demo-tau-bench: $(STAMP)
	$(BIN)/python -m reliability_lab.demo
