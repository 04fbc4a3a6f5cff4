"""Unit tests, one folder per rlmon package; top-level modules (settings, cli) sit here."""
