"""Unit tests of rlmon.demo."""
