"""Fixture hygiene: checksum, review diffs, drift, patrol."""
