"""Imported first by the tests that run Prefect: one private PREFECT_HOME per test session.

Prefect reads its settings when it is first imported, so this must run before any test
imports prefect (miscue imports it lazily, only when a flow runs). The ephemeral server of the
session lives in this directory; it is removed at exit. Any PREFECT_API_URL of the developer's
shell is dropped so tests never touch a real server they did not start.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from miscue.flows import prefect_env

if "MISCUE_TEST_PREFECT_HOME" not in os.environ:
    os.environ["MISCUE_TEST_PREFECT_HOME"] = tempfile.mkdtemp(prefix="miscue-test-prefect-")
    atexit.register(shutil.rmtree, os.environ["MISCUE_TEST_PREFECT_HOME"], True)
os.environ["PREFECT_HOME"] = os.environ["MISCUE_TEST_PREFECT_HOME"]
os.environ.pop("PREFECT_API_URL", None)
os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")
prefect_env.apply()

HOME = os.environ["PREFECT_HOME"]
