# Prhub: make run (the main job on the bundled sample), make test (the whole suite).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test lint bench build deploy clean

$(STAMP): pyproject.toml layers/prhub/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)
	@scripts/system-deps.sh fonts

run: setup
	$(BIN)/prhub run

test: $(STAMP)
	@scripts/system-deps.sh test
	$(BIN)/pytest -q -n 2

lint: $(STAMP)
	$(BIN)/ruff check layers/prhub prhub_local functions tests bench
	$(BIN)/mypy
	$(BIN)/cfn-lint template.yaml

bench: setup
	$(BIN)/python -m bench

build:  # the layer's own recipe is layers/prhub/Makefile, which sam build runs
	sam build

deploy: build
	sam deploy

clean:
	rm -rf $(VENV) .prhub site .aws-sam
