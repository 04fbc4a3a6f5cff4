"""Unit tests of rlmon.views."""
