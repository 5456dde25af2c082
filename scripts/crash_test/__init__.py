"""The pieces of scripts/crash-test: the service under test, its load, and the checks."""
