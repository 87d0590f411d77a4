# The two commands of the README:  make run  (the main job)  and  make test  (the test suite).
# Both create .venv from the locks on first use (and again whenever a lock changes).
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed
# requirements-flows.lock: prefect (the flows) and playwright (the report's browser test)
LOCKS := requirements.lock requirements-flows.lock

.PHONY: run check test lint install-check browser lock clean

$(STAMP): $(LOCKS) pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps $(addprefix -r ,$(LOCKS))
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

# the main job: every registered benchmark on the embedded offline models -> artifacts/corpora/vNNNN
run: $(STAMP)
	$(VENV)/bin/miscue build

# the fast lane while working: lint + tests/unit (no graph build, no server, no subprocess;
# tests/unit/test_tiers.py keeps it so), under two minutes on two cores
check: lint $(STAMP)
	$(VENV)/bin/python -m pytest -q -n 2 tests/unit

# the whole suite (what CI runs): lint, then every tier on two pytest-xdist workers, a test module
# each at a time (a module's fixtures -- small builds, a Prefect server -- are made once), in
# collection order: the drills' few long modules first, the many short ones filling in after
# (xdist's default sends the modules with the most tests first, leaving a long drill for the end)
test: lint $(STAMP) browser install-check
	$(VENV)/bin/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

# the wheel installed (not editable) into a throw-away venv runs a build in an empty directory
install-check: $(STAMP)
	scripts/check_install.sh $(VENV)/bin/python

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
