"""Unit tests of rlmon.analysis."""
