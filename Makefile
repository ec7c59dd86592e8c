# Two commands from a fresh clone: `make plan` (offline plan of the aws-eks stack) and `make test`.
# The environment is made by uv from uv.lock (the versions CI and the golden plans were made with); a uv on PATH is
# used, otherwise uv (UV_VERSION) is installed from PyPI into .tools/ with the Python's own pip.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV ?= $(shell command -v uv 2>/dev/null || echo .tools/bin/uv)
UV_VERSION ?= 0.13.9
STACK ?= aws-eks
STACKS := $(patsubst stacks/Pulumi.%.yaml,%,$(wildcard stacks/Pulumi.*.yaml))
FORMAT ?= tree
SOURCES := gpu_components tests stacks policy benchmarks tools __main__.py

.PHONY: install plan check test oracles clean-oracles languages check-fast lint golden golden-diff schema readme-reference bench bench-install clean mutation

.tools/bin/uv:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --target .tools uv==$(UV_VERSION)

# Every cloud's SDKs and the test tools (uv's default groups, see pyproject.toml).
$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --locked --python $(PYTHON)
	touch $@

install: $(VENV)/.synced

plan: install
	$(BIN)/gpu-components plan $(STACK) --format $(FORMAT)

lint: install
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy gpu_components tests/typing_check.py

# Lint and the Python test suite: everything but the real programs (the targets of README, Performance).
check: lint
	$(BIN)/pytest -n auto -m "not oracle and not languages"

test: check
	$(MAKE) oracles
	$(MAKE) languages

# The real programs (NVIDIA's device plugin, MIG and DRA code, Helm, a Kubernetes control plane) built from their
# Go modules at the versions of oracles/pins.toml, cached outside the repo, judging every example stack's plan and
# generated variants; one summary line per oracle. Skipped, with the reason, where Go is not on PATH.
oracles: install
	@if command -v go >/dev/null 2>&1; then $(BIN)/pytest -m oracle tests/oracles; \
	else echo "oracles skipped: Go is not on PATH (they build NVIDIA's, Helm's and Kubernetes' programs from the Go module proxy)"; fi

# The package from other Pulumi languages (README, "Checked with the real Pulumi CLI"): the Pulumi CLI and its YAML
# language host, built from the Go module proxy at the versions of oracles/pins.toml and cached like the oracles,
# read the provider's schema, add the package to a YAML program and preview it; the SDKs Pulumi generates for each
# language are built and type-checked. Ends with the table language -> SDK generated -> compiles -> program
# type-checks -> preview reached. Skipped, with the reason, where Go is not on PATH. Run by `make test` (so by CI).
languages: install
	@if command -v go >/dev/null 2>&1; then $(BIN)/pytest -m languages tests/languages $(LANGUAGES_ARGS); \
	else echo "languages skipped: Go is not on PATH (the Pulumi CLI, its YAML language host and the SDK generators are built from the Go module proxy)"; fi

# Mutation testing of the rule modules (README, "Mutation testing"): mutmut ([tool.mutmut] in pyproject.toml) changes
# gpu_components/spec/ and gpu_requests.py one mutant at a time and runs the rule tests that reach the change; then the
# score and each survivor not explained in tests/mutation_equivalents.toml (exit 1 while one is left). Slow, so the
# scheduled `mutation` workflow runs it, not `make test`.
MUTATION_JOBS ?= 2
mutation: install
	rm -rf mutants
	$(BIN)/mutmut run --max-children $(MUTATION_JOBS)
	$(BIN)/python tools/mutation_report.py

# The inner loop: lint and the tests that do not plan whole example stacks (marker `stack`, see pyproject.toml).
check-fast: lint
	$(BIN)/pytest -n auto -m "not stack and not oracle and not languages"

# Refresh the committed plans of every example stack (stacks/Pulumi.<stack>.yaml) after reviewing the change they
# show: `gpu-components diff` against the committed files first, e.g. `make golden-diff`.
golden: install
	rm -f tests/stacks/golden/*.json
	$(BIN)/gpu-components plan $(STACKS) --format json --out-dir tests/stacks/golden

golden-diff: install
	rm -rf .plans && $(BIN)/gpu-components plan $(STACKS) --format json --out-dir .plans
	$(BIN)/gpu-components diff tests/stacks/golden .plans --exit-code

# Rewrite schema.json, the package schema Pulumi's analyzer infers from the components (what `pulumi package add`
# reads); tests/test_package_schema.py fails when the committed file drifts from it.
schema: install
	$(BIN)/python -m gpu_components.package > schema.json

# The README's generated reference (components, pool fields, cluster wiring) from the input classes and schema.json.
readme-reference: install
	$(BIN)/python tools/readme_reference.py

# Offline-plan timing and scaling (see README, Performance). BENCH_ARGS=--quick for a short run.
bench: install
	$(BIN)/python benchmarks/bench_plan.py $(BENCH_ARGS)

# Fresh-clone install, type check and test timings, and the size of a one-cloud environment (README, Performance).
bench-install: install
	$(BIN)/python benchmarks/bench_install.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .tools .mypy_cache .ruff_cache .pytest_cache .plans

# The built oracle and language binaries (outside the repo; each wrapper keeps only its newest build anyway).
clean-oracles:
	rm -rf "$${GPU_COMPONENTS_ORACLE_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/gpu-components/oracles}"
