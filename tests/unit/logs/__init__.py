"""Unit tests of rlmon.logs."""
