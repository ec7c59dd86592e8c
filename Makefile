# Two commands from a fresh clone: `make plan` (offline plan of the aws-eks stack) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STACK ?= aws-eks
STACKS := aws-eks
FORMAT ?= tree

.PHONY: install plan test lint golden clean

$(BIN)/gpu-components: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/gpu-components

plan: install
	$(BIN)/gpu-components plan $(STACK) --format $(FORMAT)

lint: install
	$(BIN)/ruff check gpu_components tests stacks
	$(BIN)/ruff format --check gpu_components tests stacks
	$(BIN)/mypy gpu_components

test: lint
	$(BIN)/pytest

# Refresh the committed plans of the example stacks after reviewing the change they show.
golden: install
	for stack in $(STACKS); do $(BIN)/gpu-components plan $$stack --format json > tests/stacks/golden/$$stack.json; done

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
