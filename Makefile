# `make demo` and `make test` do all set-up on a fresh Debian machine with Python 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# tesseract: the second OCR opinion; chromium: the web page's browser test; the fonts: the OCR
# tests' held-out fonts (never trained on) and the synthetic renders' variety.
DEBS   := tesseract-ocr chromium fonts-dejavu-core fonts-liberation fonts-noto-core fonts-urw-base35 fonts-freefont-ttf

.PHONY: setup demo test test-fast bench clean

$(BIN)/kakuro: pyproject.toml
	@dpkg-query -W -f='$${Status}\n' $(DEBS) 2>/dev/null | grep -c '^install ok installed' | grep -qx $(words $(DEBS)) \
		|| { $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS); }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

setup: $(BIN)/kakuro

demo: setup
	@mkdir -p out
	$(BIN)/kakuro solve samples/wikipedia_8x8.png -o out/wikipedia_8x8.solved.png
	@echo "annotated image: out/wikipedia_8x8.solved.png"

test: setup
	$(BIN)/python -m pytest -n 2

test-fast: setup
	$(BIN)/python -m pytest -n 2 -m "not slow"

bench: setup
	$(BIN)/python bench/solver.py

clean:
	rm -rf $(VENV) out *.egg-info
