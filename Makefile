# Prhub: make run (the main job on the bundled sample), make test (the whole suite).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test check lint bench build deploy clean

# Bytecode in a cache of the checkout's own (.pycache/, ignored by git), also where PYTHONDONTWRITEBYTECODE is set, as
# on this kind of machine: uv installs no .pyc, so every interpreter the suite starts (the xdist workers, each
# `prhub` a test runs, the PR-page renderers a run spawns) compiled moto, botocore and prhub from source again:
# 1.6-1.8 s of CPU to import the pipeline's modules against 0.85-1.0 s from the cache.
export PYTHONPYCACHEPREFIX := $(CURDIR)/.pycache
unexport PYTHONDONTWRITEBYTECODE

# uv installs the same versions as pip (checked with pip freeze) in about 9 s instead of 40: on a fresh machine
# that is a tenth of make test. pip stays the fallback where uv cannot be had.
$(STAMP): pyproject.toml layers/prhub/requirements.txt
	$(PYTHON) -m venv $(VENV)
	( $(BIN)/pip install -q uv && $(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev]' ) || \
	  ( $(BIN)/pip install -q --upgrade pip && $(BIN)/pip install -q -e '.[dev]' )
	touch $(STAMP)

# The PDF font cut to its common characters (layers/prhub/cut_font.py): PDFs, one per PR page, get much cheaper.
FONT_CUT := $(VENV)/share/prhub/NotoSansSC-Common.ttf

$(FONT_CUT): layers/prhub/cut_font.py | $(STAMP)
	@scripts/system-deps.sh fonts
	$(BIN)/python layers/prhub/cut_font.py "$$($(BIN)/python -c 'from prhub.site.render.pdffont import font_location; print("%s#%d" % font_location())')" $@

setup: $(STAMP) $(FONT_CUT)
	@scripts/system-deps.sh fonts

run: setup
	$(BIN)/prhub run

test: $(STAMP) $(FONT_CUT)
	@scripts/system-deps.sh test
	@# Four workers on two cores: the pipeline tests spend much of their time waiting (local queues, fake
	@# servers' Retry-After), so two more workers keep both cores busy. Whole files to a worker, files with a slow
	@# test first, longest first as the last run measured them (tests/conftest.py): module-scoped runs are set up
	@# once. The slowest 25 are listed to keep watch.
	$(BIN)/pytest -q -n 4 --dist loadfile --no-loadscope-reorder --durations=25

# The quick loop, under a minute on two cores: the linters and the unit tier but its four slowest files (cfn-lint
# over the template, the verl panel and weeks, moto's Secrets Manager), which `make test` runs.
CHECK_SKIPS := test_template test_scoring_panel test_analysis_verl test_secrets

check: $(STAMP)
	$(BIN)/ruff check layers/prhub prhub_local functions tests bench
	$(BIN)/mypy
	$(BIN)/pytest -q -n 2 tests/unit $(addprefix --ignore=tests/unit/,$(addsuffix .py,$(CHECK_SKIPS)))

lint: $(STAMP)
	$(BIN)/ruff check layers/prhub prhub_local functions tests bench
	$(BIN)/mypy
	$(BIN)/cfn-lint template.yaml
	@# The GitHub Action's workflow (docs/github-action.md); its composite action runs in tests/e2e/test_action.py.
	$(BIN)/actionlint docs/workflows/prhub.yml
	@# The architecture's rules: folders import downwards, no import cycle, no function above complexity 25.
	$(BIN)/pytest -q -p no:cacheprovider tests/unit/test_layering.py tests/unit/test_import_cycles.py tests/unit/test_complexity.py

bench: setup
	$(BIN)/python -m bench

build:  # the layer's own recipe is layers/prhub/Makefile, which sam build runs
	sam build

deploy: build
	sam deploy

clean:
	rm -rf $(VENV) .prhub site .aws-sam
