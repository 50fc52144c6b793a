# The README's two commands: `make demo` and `make test`. Both create/refresh .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export LITELLM_LOCAL_MODEL_COST_MAP := True
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: venv demo demo-tau-bench docs-figures test lint typecheck unit notebooks \
	notebooks-execute notebooks-sync bench clean

# Notebooks are pairs: notebooks/NN_name.py (jupytext percent format: the reviewed, linted
# source) and NN_name.ipynb (the same cells with their outputs, checked by nbval).
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.py))
# The experiments the notebooks run (experiments/notebooks.yaml, experiments/your_agent/);
# started afresh for a check.
NOTEBOOK_RESULTS := results/notebooks results/your_agent results/adder

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,inspect,ray,openai-agents,langgraph]"
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/reliability-lab run experiments/demo.yaml
	$(BIN)/reliability-lab figures results/demo --output results/demo/figures
	@echo "Paper figures (PDF and PNG): results/demo/figures/"

# The three PNGs under docs/figures/ shown by the README and docs/figures.md (after `make demo`).
docs-figures: $(STAMP)
	$(BIN)/python tools/docs_figures.py results/demo docs/figures

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -n 2 --dist loadgroup tests reliability_lab

notebooks: $(STAMP)
	rm -rf $(NOTEBOOK_RESULTS)
	env -u MPLBACKEND $(BIN)/pytest -p no:xdist --nbval --nbval-current-env \
		--nbval-sanitize-with notebooks/sanitize.cfg $(NOTEBOOKS:.py=.ipynb)

test: lint typecheck unit notebooks

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_metrics.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache

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
demo-tau-bench: $(STAMP)
	$(BIN)/python -m reliability_lab.demo
