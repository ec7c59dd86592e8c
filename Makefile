# Two commands from a fresh clone: `make plan` (offline plan of the aws-eks stack) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STACK ?= aws-eks
STACKS := $(patsubst stacks/Pulumi.%.yaml,%,$(wildcard stacks/Pulumi.*.yaml))
FORMAT ?= tree

.PHONY: install plan test lint golden golden-diff bench clean

$(BIN)/gpu-components: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/gpu-components

plan: install
	$(BIN)/gpu-components plan $(STACK) --format $(FORMAT)

lint: install
	$(BIN)/ruff check gpu_components tests stacks policy benchmarks
	$(BIN)/ruff format --check gpu_components tests stacks policy benchmarks
	$(BIN)/mypy gpu_components

test: lint
	$(BIN)/pytest

# Refresh the committed plans of every example stack (stacks/Pulumi.<stack>.yaml) after reviewing the change they
# show: `gpu-components diff` against the committed files first, e.g. `make golden-diff`.
golden: install
	$(BIN)/gpu-components plan $(STACKS) --format json --out-dir tests/stacks/golden

golden-diff: install
	rm -rf .plans && $(BIN)/gpu-components plan $(STACKS) --format json --out-dir .plans
	$(BIN)/gpu-components diff tests/stacks/golden .plans

# Offline-plan timing and scaling (see README, Performance). BENCH_ARGS=--quick for a short run.
bench: install
	$(BIN)/python benchmarks/bench_plan.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .plans
