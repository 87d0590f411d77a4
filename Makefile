# The two commands of the README:  make run  (the main job)  and  make test  (the test suite).
# Both create .venv from requirements.lock on first use (and again whenever the lock changes).
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed

.PHONY: run test lock clean

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r requirements.lock
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/miscue graphs

test: $(STAMP)
	$(VENV)/bin/python -m pytest -q

lock: $(STAMP)
	{ sed -n '1,4p' requirements.lock; $(VENV)/bin/pip freeze --exclude-editable | grep -v '^miscue'; } > requirements.lock.new
	mv requirements.lock.new requirements.lock

clean:
	rm -rf $(VENV)
