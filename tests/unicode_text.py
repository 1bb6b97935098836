"""Text for the property tests: any code point UTF-8 can encode, named by category.

``st.text()`` draws from ``st.characters(codec="utf-8")`` by default. Hypothesis finds
what a codec encodes by encoding each of the 1.1 million code points, about 3 s of CPU
in a process the first time on a machine (it then keeps the table in ``.hypothesis/``):
on a fresh clone, as in CI, every xdist worker paid it. UTF-8 encodes every code point
but the surrogates, which are the ``Cs`` category: excluding it draws from the same
characters and reads only the Unicode category table, built in a fifth of a second.
"""

from hypothesis import strategies as st

UTF8_CHARACTERS = st.characters(exclude_categories=("Cs",))
"""Every character UTF-8 can encode (all but the surrogates)."""


def unicode_text(*, min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[str]:
    """``st.text(min_size=..., max_size=...)``, without the codec's table."""
    return st.text(UTF8_CHARACTERS, min_size=min_size, max_size=max_size)
