# `make demo` and `make test` do all set-up on a fresh Debian machine with Python 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# tesseract: the second OCR opinion; chromium: the web page's browser test; the fonts: the OCR
# tests' held-out fonts (never trained on) and the synthetic renders' variety.
DEBS   := tesseract-ocr chromium fonts-dejavu-core fonts-liberation fonts-noto-core fonts-urw-base35 fonts-freefont-ttf

.PHONY: setup demo test test-fast mutation bench clean

$(BIN)/kakuro: pyproject.toml
	@dpkg-query -W -f='$${Status}\n' $(DEBS) 2>/dev/null | grep -c '^install ok installed' | grep -qx $(words $(DEBS)) \
		|| { $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS); }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

# The project's own modules compiled to bytecode, as pip does for any installed package (not for
# an editable one): where Python may not write it (PYTHONDONTWRITEBYTECODE, a read-only checkout),
# every command otherwise compiles them again, a tenth of a second of its start-up. Only what
# changed since is compiled again.
setup: $(BIN)/kakuro
	@$(BIN)/python -m compileall -q $(wildcard *.py) vision solver web >/dev/null

demo: setup
	@mkdir -p out
	$(BIN)/kakuro solve samples/wikipedia_8x8.png -o out/wikipedia_8x8.solved.png
	@echo "annotated image: out/wikipedia_8x8.solved.png"

test: setup
	$(BIN)/python -m pytest -n 2

test-fast: setup
	$(BIN)/python -m pytest -n 2 -m "not slow"

# Mutation testing (not part of `make test`; see README): the solver's model, formats, rules and
# reading reconciliation, pipeline.py's results and cli.py's command line. MUTATION_JOBS mutants at a time.
MUTATION_JOBS ?= 2
MUTANTS := 'solver.reconcile.*' 'solver.model.*' 'solver.formats.*' 'solver.validate.*' \
	'solver.combos.*' 'solver.errors.*' \
	'cli.x_main__*' 'cli.x_cmd_solve__*' 'cli.x_cmd_check__*' 'cli.x_cmd_combos__*' \
	'pipeline.x_worst_exit_code__*' 'pipeline.x*PuzzleResult*to_json__*' 'pipeline.x_solve_puzzle_file__*' \
	'pipeline.x_load_input__*' 'cli.x__print_result_text__*'

mutation: setup
	$(BIN)/pip install -q -e '.[test,mutation]'
	$(BIN)/mutmut run --max-children $(MUTATION_JOBS) $(MUTANTS)
	$(BIN)/mutmut results

bench: setup
	$(BIN)/python bench/solver.py

clean:
	rm -rf $(VENV) out *.egg-info mutants
