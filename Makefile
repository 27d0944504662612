# Two commands for a fresh machine with python3 and make:
#   make lab    open the series in JupyterLab
#   make test   run every library test and every notebook under nbval
# Each creates .venv from requirements.txt the first time.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: lab test app notebooks bench clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# Jupyter refuses to run as root unless told; containers often run as root.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP)
	$(BIN)/jupyter lab $(AS_ROOT) notebooks/00_start_here.ipynb

test: $(STAMP)
	$(BIN)/python -m pytest --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider tests notebooks

# The 30-turn comparison as a standalone page, for projecting in class.
app: $(STAMP)
	$(BIN)/voila notebooks/07_compare_strategies.ipynb

# Re-execute every notebook in place on a fresh kernel (after editing one).
notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py notebooks/*.ipynb

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV)
