"""rlmon's tests: ``unit/`` mirrors the packages, ``app/`` runs the pages through AppTest, ``browser/`` drives a
real server in headless Chromium; ``helpers/`` is what they (and ``benchmarks/``) share."""
