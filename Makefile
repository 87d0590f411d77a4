# The two commands of the README:  make run  (the main job)  and  make test  (the test suite).
# Both create .venv from the locks on first use (and again whenever a lock changes).
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed
# requirements-flows.lock: prefect (the flows) and playwright (the report's browser test)
LOCKS := requirements.lock requirements-flows.lock

.PHONY: run test lint browser lock clean

$(STAMP): $(LOCKS) pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps $(addprefix -r ,$(LOCKS))
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

# the main job: every registered benchmark on the embedded offline models -> artifacts/corpora/vNNNN
run: $(STAMP)
	$(VENV)/bin/miscue build

# the tests start with the linters: a broken layer, a Prefect import outside flows/prefect_flows.py,
# an import cycle or a ruff finding fails the build. Two pytest-xdist workers, a test module each
# at a time (its module fixtures -- whole builds -- are made once): most tests run one build or
# one process, so two cores take the suite from ~51 to ~30 minutes
test: lint $(STAMP) browser
	$(VENV)/bin/python -m pytest -q -n 2 --dist loadfile

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python scripts/lint_imports.py

# the HTML report is checked in a real headless Chromium (Debian package; needs root to install)
browser:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

lock: $(STAMP)
	{ sed -n '1,4p' requirements.lock; $(VENV)/bin/pip freeze --exclude-editable | grep -v '^miscue' | grep -v -x -F -f requirements-flows.lock; } > requirements.lock.new
	mv requirements.lock.new requirements.lock

clean:
	rm -rf $(VENV)
