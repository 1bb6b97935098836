"""A test's store name: unsafe characters written ``_``, a long name cut with a digest."""

from __future__ import annotations

from pathlib import PurePath

from replaygate.pytest_plugin.store_names import MAX_NAME, same_file_key, store_name
from replaygate.regular import windows_unfit


def test_a_short_name_keeps_its_safe_characters() -> None:
    assert store_name("test_says_hi[hello world/é]") == "test_says_hi[hello_world__]"


def test_a_long_name_is_cut_with_a_digest_of_the_whole_name() -> None:
    one = store_name("test_city[" + "x" * 300 + "]")
    other = store_name("test_city[" + "x" * 301 + "]")
    assert len(one) == len(other) == MAX_NAME
    assert one.startswith("test_city[xxx") and one != other
    assert len(f".{one}.jsonl.bak12.4194304.tmp") <= 255  # the longest file written beside it


def test_a_name_of_the_longest_length_is_kept_as_it_is() -> None:
    name = "t" * MAX_NAME
    assert store_name(name) == name


def test_names_differing_in_case_or_composition_are_one_file_on_macos_and_windows() -> None:
    assert same_file_key(PurePath("test_Api/test_A[Foo].jsonl")) == same_file_key(
        PurePath("test_api/test_a[foo].jsonl")
    )
    assert same_file_key(PurePath("test_caf\u00e9")) == same_file_key(PurePath("test_cafe\u0301"))
    assert same_file_key(PurePath("test_x.")) == same_file_key(PurePath("test_x"))
    assert same_file_key(PurePath("test_a[b].jsonl")) != same_file_key(PurePath("test_a[c].jsonl"))


def test_a_device_name_or_a_trailing_dot_is_unfit_for_windows_whatever_its_suffix() -> None:
    for unfit in ["test_u/Con.test_x.jsonl", "test_u/nul .txt", "com1/test_x.jsonl", "test_x./t"]:
        assert windows_unfit(PurePath(unfit)) is not None, unfit
    for fit in ["test_u/TestCon.test_x.jsonl", "test_u/test_p[CON].jsonl", "test_u/COM10.jsonl"]:
        assert windows_unfit(PurePath(fit)) is None, fit


def test_a_character_windows_forbids_is_unfit_and_dot_folders_are_no_names() -> None:
    # a marker's fixtures="odd/what?.jsonl" was written on Linux, and no Windows checkout had it
    assert windows_unfit(PurePath("odd/what?.jsonl")) == (
        "'what?.jsonl' holds '?', which no file name holds on Windows"
    )
    for unfit in ["a:b.jsonl", "x/<y>.jsonl", 'q"t.jsonl', "p|q/x.jsonl", "s*.jsonl"]:
        assert windows_unfit(PurePath(unfit)) is not None, unfit
    for fit in ["../shared/x.jsonl", "./x.jsonl", "/abs/x.jsonl"]:
        assert windows_unfit(PurePath(fit)) is None, fit
