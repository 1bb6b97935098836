"""The package version, in one place (read by the build and by fixture ``meta``)."""

__version__ = "0.1.0"
