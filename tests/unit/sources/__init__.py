"""Unit tests of rlmon.sources."""
