"""Moving to replaygate from other record/replay tools.

:mod:`~replaygate.migrate.cassettes` reads vcrpy cassettes (``vcrpy``,
``pytest-recording``); :mod:`~replaygate.migrate.importing` turns each into a fixture
store, as a live recording through :mod:`replaygate.http` would have stored it.
"""
