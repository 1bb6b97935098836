"""Reference agents shipped with replaygate, to test and to learn from.

``research_copilot`` is a small research agent: it searches a local corpus, fetches
a document and answers with a citation ``[doc-id]``.
"""
