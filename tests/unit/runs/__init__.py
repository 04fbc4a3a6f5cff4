"""Unit tests of rlmon.runs."""
