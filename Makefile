.PHONY: check test
check:
	ruff format --check .
	ruff check .
	mypy
	lint-imports

test:
	pytest -q
