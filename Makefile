.PHONY: check test
check:
	ruff format --check .
	ruff check .
	mypy

test:
	pytest -q
