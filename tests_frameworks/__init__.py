"""End-to-end recipes of replaygate under agent frameworks, one nox environment each."""
