"""Unit tests of rlmon.app."""
