"""replaygate's pytest plugin: record/replay (:mod:`.recording`), sampled cases (:mod:`.sampling`).

Both modules are registered through the ``pytest11`` entry points, so installing
replaygate is enough; neither is imported by the rest of the library.
"""
