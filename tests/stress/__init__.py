"""The stress test. A package, so that its conftest.py is `stress.conftest` and does not
take the place of tests/conftest.py, which the other test modules import as `conftest`."""
