"""What ``eval --shard`` takes and what ``eval merge`` reads: a shard count no run could
be merged from, and a shard file edited by hand, are refused by name (in process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.assertions.kinds import Outcome
from replaygate.cli.eval_cmds import eval_cmd
from replaygate.evals.baseline import update_baseline
from replaygate.evals.errors import ResultsError
from replaygate.evals.history import History
from replaygate.evals.reference import Reference
from replaygate.evals.results import CaseResult, EvalResults, load_eval_results
from replaygate.evals.scorers import CaseCounts, metrics_of
from replaygate.evals.shards import MAX_SHARDS, Shard, merge
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from replaygate.report.gated import gated_run
from replaygate.sampling import SampledResult, SampleResult


def test_a_shard_count_beyond_the_limit_is_refused() -> None:
    assert Shard.parse(f"{MAX_SHARDS}/{MAX_SHARDS}") == Shard(MAX_SHARDS, MAX_SHARDS)
    with pytest.raises(ValueError, match="N must be at most 10,000"):
        Shard.parse("1/99999999999999999999")
    with pytest.raises(ValueError, match=r"shard 1/0: N must be at least 1"):
        Shard.parse("1/0")  # it said "I must be from 1 to N", of an I that was 1


def part(**shard: Any) -> EvalResults:
    """A shard's results holding no case, with ``eval.shard`` as given."""
    return EvalResults((), {"shard": {"index": 1, "count": 1, "cases": 0, "positions": [],
                                      **shard}})  # fmt: skip


@pytest.mark.parametrize(
    "shard",
    [
        {"count": 10**6},  # a hand edit: merging must not list a million missing shards
        {"index": True},
        {"index": 0},
        {"index": 2},
        {"cases": -1},
        {"count": 1.0},
    ],
)
def test_a_damaged_shard_is_refused_by_name(shard: dict[str, Any]) -> None:
    with pytest.raises(ResultsError, match=r"shard-1\.json: not the results of a shard"):
        merge([part(**shard)], ["shard-1.json"])


def test_missing_shards_are_counted_and_listed_in_a_line_with_the_files_given() -> None:
    with pytest.raises(ResultsError) as refused:
        merge([part(index=7, count=MAX_SHARDS)], ["shard-7.json"])
    said = str(refused.value)
    assert said.startswith("9999 of 10000 shard(s) missing: 1/10000, 2/10000, ")
    assert ", 11/10000, ..." in said and "12/10000" not in said  # it listed all 9,999
    assert "(given: shard-7.json (7/10000)): merge needs the results of every shard" in said
    assert len(said) < 400


def test_one_file_named_twice_is_said_so() -> None:
    with pytest.raises(ResultsError, match=r"^s1\.json: given twice \(shard 1/1\): give each"):
        merge([part(), part()], ["s1.json", "s1.json"])  # `eval merge shard-*.json s1.json`
    with pytest.raises(ResultsError, match=r"^shard 1/1 given twice: s1\.json and copy\.json$"):
        merge([part(), part()], ["s1.json", "copy.json"])


def test_a_whole_empty_run_merges() -> None:
    assert merge([part()], ["shard-1.json"]).cases == ()


def test_shards_naming_one_input_two_ways_merge_alike_in_any_order() -> None:
    # shard 2 priced with a --prices file of the shipped prices, its store named by an
    # older replaygate's absolute path: the merged run named the table and the store as
    # the shard given first did, so two merges of the same shards differed
    prices = {"currency": "USD", "models": {"m": {"input": 3.0, "output": 15.0}}}

    def shard(index: int, source: str, fixtures: str) -> EvalResults:
        info = {
            "shard": {"index": index, "count": 2, "cases": 0, "positions": []},
            "prices": {**prices, "source": source},
            "fixtures": fixtures,
            "fixtures_digest": "f" * 64,
        }
        return EvalResults((), info)

    one = shard(1, "replaygate/evals/data/prices.toml", "evals/fixtures.jsonl")
    two = shard(2, "p.toml over replaygate/evals/data/prices.toml", "/ci/evals/fixtures.jsonl")
    given = (([one, two], ["s1.json", "s2.json"]), ([two, one], ["s2.json", "s1.json"]))
    merged = [merge(parts, names).info for parts, names in given]
    assert merged[0] == merged[1]
    assert merged[0]["prices"]["source"] == "replaygate/evals/data/prices.toml"
    assert merged[0]["fixtures"] == "evals/fixtures.jsonl"


def test_the_merged_run_is_at_the_earliest_shard_time_whatever_its_utc_offset() -> None:
    def timed(index: int, time: str) -> EvalResults:
        shard = {"index": index, "count": 2, "cases": 0, "positions": []}
        return EvalResults((), {"time": time, "shard": shard})

    parts = [timed(1, "2026-11-30T12:00:00-06:00"), timed(2, "2026-11-30T17:00:00Z")]
    merged = merge(parts, ["s1.json", "s2.json"])  # 12:00-06:00 is 18:00Z, the later
    assert merged.info["time"] == "2026-11-30T17:00:00Z"


def shard_files(folder: Path, ids: list[str], count: int) -> list[Path]:
    """The results files of the ``count`` shards of a run of one-sample cases ``ids``."""
    files = []
    for index in range(1, count + 1):
        shard = Shard(index, count)
        placed = [(i, case_id) for i, case_id in enumerate(ids) if shard.holds(case_id)]
        cases = tuple(
            CaseResult(
                SampledResult(
                    case_id, 1, 1, (SampleResult(0, (Outcome("ok", "gate", True),), {}),)
                ),
                CaseCounts(samples=1, passed=True, runs=1),
            )
            for _, case_id in placed
        )
        info = {
            "time": f"2026-11-30T10:00:0{index}Z",
            "shard": {"index": index, "count": count, "cases": len(ids),
                      "positions": [i for i, _ in placed]},
        }  # fmt: skip
        files.append(EvalResults(cases, info).write(folder / f"shard-{index}.json"))
    return files


def test_the_same_shards_merged_twice_are_one_run_of_the_history(tmp_path: Path) -> None:
    parts = [str(p) for p in shard_files(tmp_path, ["a", "b", "c", "d", "e"], 2)]
    history = str(tmp_path / "history.db")
    first = CliRunner().invoke(
        eval_cmd, ["merge", *parts, "--out", str(tmp_path / "1.json"), "--history", history]
    )
    assert first.exit_code == 0, first.output
    assert "appended to" in first.output
    again = CliRunner().invoke(
        eval_cmd,
        ["merge", *reversed(parts), "--out", str(tmp_path / "2.json"), "--history", history],
    )
    assert again.exit_code == 0, again.output
    with History.open(history, read_only=True) as opened:
        (run,) = opened.runs()
    assert run.id.startswith("20261130T100001Z-") and run.time == "2026-11-30T10:00:01Z"
    assert f"history: run {run.id} appended to" in first.output
    assert f"history: run {run.id} is already in {history} " in again.output
    assert "nothing appended" in again.output
    one, two = (json.loads((tmp_path / f"{n}.json").read_text("utf-8")) for n in (1, 2))
    assert one["cases"] == two["cases"]
    edited = json.loads(Path(parts[1]).read_text("utf-8"))
    edited["eval"]["time"] = "2026-11-30T11:00:00Z"  # another run of that shard
    Path(parts[1]).write_text(json.dumps(edited), encoding="utf-8")
    other = CliRunner().invoke(
        eval_cmd, ["merge", *parts, "--out", str(tmp_path / "3.json"), "--history", history]
    )
    assert other.exit_code == 0, other.output
    assert "appended to" in other.output
    with History.open(history, read_only=True) as opened:
        assert len(opened.runs()) == 2


def test_a_shard_without_a_time_merges_at_the_earliest_time_the_others_give(
    tmp_path: Path,
) -> None:
    # the merged run took the empty time of a shard that stated none (its eval.time
    # deleted by hand), printed its verdicts, then could not write it: "eval.time: must
    # be an ISO 8601 time ..., got ''"
    files = shard_files(tmp_path, list("abcde"), 3)
    document = json.loads(files[0].read_text("utf-8"))
    del document["eval"]["time"]
    files[0].write_text(json.dumps(document), encoding="utf-8")
    out, history = tmp_path / "merged.json", tmp_path / "history.db"
    done = CliRunner().invoke(
        eval_cmd, ["merge", *map(str, files), "--out", str(out), "--history", str(history)]
    )
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text("utf-8"))["eval"]["time"] == "2026-11-30T10:00:02Z"
    with History.open(history, read_only=True) as opened:
        assert [run.time for run in opened.runs()] == ["2026-11-30T10:00:02Z"]
    assert "time" not in merge([part()], ["shard-1.json"]).info  # no shard states one


def test_a_merged_run_given_as_a_shard_is_named_as_one(tmp_path: Path) -> None:
    # `eval merge *.json --out results.json` run again took the earlier results.json
    # for a shard, "not the results of a shard (eval.shard is missing): run each shard
    # with `replaygate eval --shard I/N`", though every shard had been run
    parts = [str(p) for p in shard_files(tmp_path, list("abcde"), 2)]
    out = tmp_path / "results.json"
    first = CliRunner().invoke(eval_cmd, ["merge", *parts, "--out", str(out), "--no-history"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(eval_cmd, ["merge", *parts, str(out), "--no-history"])
    assert again.exit_code == 2, again.output
    merged = f"Error: {out}: holds the results merged from 2 shard(s) (eval.shards)"
    assert merged in again.output


def test_shards_merged_again_from_other_paths_are_the_latest_run_the_report_gates(
    tmp_path: Path,
) -> None:
    # a re-run gate job downloaded the shards into another folder: merge said the run
    # was already in the history, and the report then said in red that the results it
    # gated were "not the run shown as the latest run above", of that same run
    parts = shard_files(tmp_path, list("abcde"), 2)
    (tmp_path / "again").mkdir()
    moved = [tmp_path / "again" / p.name for p in parts]
    for part_file, copy in zip(parts, moved, strict=True):
        copy.write_bytes(part_file.read_bytes())
    history = str(tmp_path / "history.db")
    for n, files in enumerate((parts, moved)):
        out = str(tmp_path / f"{n}.json")
        done = CliRunner().invoke(eval_cmd, ["merge", *map(str, files), "--out", out,
                                             "--history", history])  # fmt: skip
        assert done.exit_code == 0, done.output
    with History.open(history, read_only=True) as opened:
        runs = opened.runs()
    again = Reference.of(load_eval_results(tmp_path / "1.json"), "1.json")
    assert len(runs) == 1 and gated_run(again, runs).is_latest


def test_a_pattern_that_matched_no_shard_file_says_the_files_are_not_there(
    tmp_path: Path,
) -> None:
    # artifacts downloaded each into a folder of its own name left `shard-*.json`
    # unmatched, and the shell passed it on: "cannot read results: No such file"
    pattern = str(tmp_path / "shard-*.json")
    done = CliRunner().invoke(eval_cmd, ["merge", pattern, "--no-history"])
    assert done.exit_code == 2, done.output
    assert f"Error: {pattern}: no file matches this pattern" in done.output
    assert "merge-multiple: true" in done.output


def test_shards_that_state_no_time_merge_into_the_run_the_report_gates(tmp_path: Path) -> None:
    # the merged run states no time, and the history keeps it at the time it was merged:
    # the report said "a run of no stated time, ..., not in the history" and, in red, that
    # the results it gated were "not the run shown as the latest run above", of that run
    files = shard_files(tmp_path, list("abcde"), 2)
    for file in files:
        document = json.loads(file.read_text("utf-8"))
        del document["eval"]["time"]
        file.write_text(json.dumps(document), encoding="utf-8")
    out, history = tmp_path / "merged.json", str(tmp_path / "history.db")
    done = CliRunner().invoke(eval_cmd, ["merge", *map(str, files), "--out", str(out),
                                         "--history", history])  # fmt: skip
    assert done.exit_code == 0, done.output
    with History.open(history, read_only=True) as opened:
        runs = opened.runs()
    gated = gated_run(Reference.of(load_eval_results(out), "merged.json"), runs)
    assert len(runs) == 1 and gated.is_latest and gated.mismatch() is None


def test_shards_named_two_ways_merge_into_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # eval.shards kept each file as typed: `./shards/shard-1.json` and its absolute
    # path gave two results files of one run
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    (tmp_path / "shards").mkdir()
    files = shard_files(tmp_path / "shards", list("abcde"), 2)
    monkeypatch.chdir(tmp_path)
    typed = [["./shards/shard-1.json", "shards//shard-2.json"], [str(f) for f in files]]
    for n, parts in enumerate(typed):
        done = CliRunner().invoke(eval_cmd, ["merge", *parts, "--out", f"{n}.json", "--no-history"])
        assert done.exit_code == 0, done.output
    one, two = ((tmp_path / f"{n}.json").read_bytes() for n in (0, 1))
    assert one == two
    shards = json.loads(one)["eval"]["shards"]
    assert [s["file"] for s in shards] == ["shards/shard-1.json", "shards/shard-2.json"]


def edited(path: Path, edit: Any) -> str:
    """``path`` with ``edit`` applied to its ``eval.shard.positions``, as a copy beside it."""
    document = json.loads(path.read_text("utf-8"))
    edit(document["eval"]["shard"]["positions"])
    copy = path.with_name(f"edited-{path.name}")
    copy.write_text(json.dumps(document), encoding="utf-8")
    return str(copy)


@pytest.mark.parametrize(
    ("edit", "refused"),
    [
        (
            lambda positions: positions.reverse(),
            "eval.shard.positions[1] is 6, before eval.shard.positions[0] (7): a shard's cases "
            "are in file order, so its positions increase (case 'd' at 7, then case 'g' at 6)",
        ),
        (
            lambda positions: positions.__setitem__(1, positions[0]),
            "eval.shard.positions[1] is 3, as is eval.shard.positions[0]: position 3 given "
            "twice (cases 'd' and 'g')",
        ),
        (
            lambda positions: positions.__setitem__(0, 0),
            "eval.shard.positions[0] is 0, as is eval.shard.positions[0] of {first}: position "
            "0 given twice (cases 'a' and 'd')",
        ),
    ],
    ids=["reversed", "twice in the shard", "twice in two shards"],
)
def test_positions_that_disagree_with_the_cases_are_refused_by_field(
    tmp_path: Path, edit: Any, refused: str
) -> None:
    # a reversed list merged the shard's cases in reverse; a position given twice was
    # "case 'g' is also in another shard", of the wrong case and the wrong shard
    files = shard_files(tmp_path, list("abcdefgh"), 2)
    assert json.loads(files[1].read_text("utf-8"))["eval"]["shard"]["positions"] == [3, 6, 7]
    parts = [str(files[0]), edited(files[1], edit)]
    out = tmp_path / "merged.json"
    done = CliRunner().invoke(eval_cmd, ["merge", *parts, "--out", str(out), "--no-history"])
    assert done.exit_code == 2, done.output
    assert f"Error: {parts[1]}: {refused.format(first=parts[0])}; the file was edited" in (
        done.output
    )
    assert not out.exists()


def test_merge_json_prints_the_merged_results_without_out(tmp_path: Path) -> None:
    # as `eval --json` does; it stopped at "Missing option '--out'"
    parts = [str(p) for p in shard_files(tmp_path, list("abcde"), 2)]
    out = tmp_path / "merged.json"
    written = CliRunner().invoke(eval_cmd, ["merge", *parts, "--out", str(out), "--no-history"])
    assert written.exit_code == 0, written.output
    printed = CliRunner().invoke(eval_cmd, ["merge", *parts, "--json", "--no-history"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == json.loads(out.read_text("utf-8"))
    history = tmp_path / "history.db"
    shown = CliRunner().invoke(eval_cmd, ["merge", *parts, "--history", str(history)])
    assert shown.exit_code == 0, shown.output
    assert "success             1.000" in shown.stdout and "results:" not in shown.output
    assert f"appended to {history}" in shown.output


@pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")
@pytest.mark.slow  # a real git repository
def test_shards_run_on_other_contents_of_the_cases_file_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cases file changed between shards (each case's tags): the same path and count
    of cases, other cases; results without a digest still merge."""
    monkeypatch.chdir(tmp_path)
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    cases = [{**case, "samples": 1, "floor": 1} for case in shipped[:4]]
    path = tmp_path / "cases.jsonl"
    store = str(shipped_fixtures())
    parts = []
    for index, tag in ((1, "first"), (2, "edited")):  # the cases file edited before shard 2
        path.write_text("".join(json.dumps({**c, "tags": [tag]}) + "\n" for c in cases), "utf-8")
        part = str(tmp_path / f"shard-{index}.json")
        args = ["--agent", "replaygate.examples.research_copilot:copilot", "--cases", str(path),
                "--fixtures", store, "--shard", f"{index}/2", "--out", part]  # fmt: skip
        ran = CliRunner().invoke(eval_cmd, args)
        assert ran.exit_code == 0, ran.output
        parts.append(part)
    assert all(json.loads(Path(p).read_text("utf-8"))["cases"] for p in parts)
    refused = CliRunner().invoke(eval_cmd, ["merge", *parts, "--no-history"])
    assert refused.exit_code == 2
    assert f"{parts[1]}: ran other cases than {parts[0]} (eval.cases_digest " in refused.output
    assert "changed between these shards; run every shard on one version of it" in refused.output
    for part in parts:  # as a replaygate that stored no digest wrote them
        document = json.loads(Path(part).read_text("utf-8"))
        del document["eval"]["cases_digest"]
        Path(part).write_text(json.dumps(document), "utf-8")
        if part == parts[0]:  # one shard of a replaygate that stored none: another run
            mixed = CliRunner().invoke(eval_cmd, ["merge", *parts, "--no-history"])
            assert mixed.exit_code == 2
            assert f"{parts[1]}: cases_digest is '" in mixed.output
            assert f"but none in {parts[0]}: these shards come from different runs" in mixed.output
    old = CliRunner().invoke(eval_cmd, ["merge", *parts, "--no-history"])
    assert old.exit_code == 0, old.output


def test_options_of_eval_given_before_merge_are_refused_not_ignored(tmp_path: Path) -> None:
    parts = [str(p) for p in shard_files(tmp_path, list("abcde"), 2)]
    history, out = tmp_path / "mine.db", tmp_path / "merged.json"
    before = ["--no-history", "--history", str(history), "--out", str(out), "--json"]
    refused = CliRunner().invoke(eval_cmd, [*before, "merge", *parts])
    assert refused.exit_code == 2
    assert refused.output.startswith(
        "Error: --out, --history, --no-history, --json given before `merge` would not be used: "
        "give merge's options after it (`replaygate eval merge [--out FILE]"
    )
    assert not out.exists() and not history.exists()
    cases = CliRunner().invoke(eval_cmd, ["--cases", "none.jsonl", "merge", *parts])
    assert cases.exit_code == 2 and "--cases given before `merge`" in cases.output
    after = CliRunner().invoke(eval_cmd, ["merge", "--history", str(history), *parts])
    assert after.exit_code == 0, after.output
    assert history.exists()


def test_shards_whose_cases_keep_no_counts_merge_without_made_up_counts(tmp_path: Path) -> None:
    # cases written without counts (a plain sampling results file's) stay without: zero
    # counts written for them would read back as the cases' own
    parts = []
    for path in shard_files(tmp_path, list("abcde"), 2):
        document = json.loads(path.read_text("utf-8"))
        for case in document["cases"]:
            del case["counts"], case["metrics"]
        document["metrics"] = metrics_of([CaseCounts(1, True)] * len(document["cases"]))
        path.write_text(json.dumps(document), "utf-8")
        parts.append(str(path))
    out = tmp_path / "merged.json"
    done = CliRunner().invoke(eval_cmd, ["merge", *parts, "--out", str(out), "--no-history"])
    assert done.exit_code == 0, done.output
    merged = json.loads(out.read_text("utf-8"))
    assert [case["case"] for case in merged["cases"]] == list("abcde")
    assert all("counts" not in case and "metrics" not in case for case in merged["cases"])
    assert merged["metrics"]["success"] == 1.0 and merged["metrics"]["steps"] is None
    assert not any(case.counts_known for case in load_eval_results(out).cases)


@pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")
@pytest.mark.slow  # a real git repository
def test_merged_shards_hold_the_run_information_of_a_serial_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # timing apart (eval.time, eval.shards), the merged results are the serial run's
    monkeypatch.chdir(tmp_path)
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(json.dumps({**c, "samples": 1, "floor": 1}) + "\n" for c in shipped[:4]), "utf-8"
    )
    run = ["--agent", "replaygate.examples.research_copilot:copilot", "--cases", str(cases),
           "--fixtures", str(shipped_fixtures()), "--no-history"]  # fmt: skip
    outputs = {}
    for name, extra in (
        ("serial", []),
        ("shard-1", ["--shard", "1/2"]),
        ("shard-2", ["--shard", "2/2"]),
    ):
        outputs[name] = str(tmp_path / f"{name}.json")
        ran = CliRunner().invoke(eval_cmd, [*run, *extra, "--out", outputs[name]])
        assert ran.exit_code == 0, ran.output
    assert "fixtures_digest" in json.loads(Path(outputs["shard-1"]).read_text("utf-8"))["eval"]
    merged = tmp_path / "merged.json"
    done = CliRunner().invoke(
        eval_cmd, ["merge", outputs["shard-1"], outputs["shard-2"], "--out", str(merged),
                   "--no-history"]
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    serial, ours = (json.loads(Path(p).read_text("utf-8")) for p in (outputs["serial"], merged))
    assert [s["shard"] for s in ours["eval"].pop("shards")] == ["1/2", "2/2"]
    assert list(ours["eval"]) == list(serial["eval"])  # in its order: a diff shows no move
    for document in (serial, ours):
        del document["eval"]["time"]
    assert ours == serial


def _project(folder: Path) -> Path:
    """A project whose [tool.replaygate] names its cases and fixtures (the shipped ones,
    four cases of one sample), as a CI job checks it out."""
    (folder / "evals").mkdir(parents=True)
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    (folder / "evals" / "cases.jsonl").write_text(
        "".join(json.dumps({**c, "samples": 1, "floor": 1}) + "\n" for c in shipped[:4]), "utf-8"
    )
    (folder / "evals" / "fixtures.jsonl").write_bytes(shipped_fixtures().read_bytes())
    (folder / "pyproject.toml").write_text(
        '[tool.replaygate]\nagent = "replaygate.examples.research_copilot:copilot"\n'
        'cases = "evals/cases.jsonl"\nfixtures = "evals/fixtures.jsonl"\n',
        "utf-8",
    )
    return folder


@pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")
@pytest.mark.slow  # the eval runner's whole flow
def test_results_name_the_files_from_the_project_folder_so_checkouts_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two jobs of one CI matrix, the same commit checked out at two paths
    one, two = _project(tmp_path / "one"), _project(tmp_path / "two")
    parts = []
    for index, (checkout, flags) in enumerate(
        [(one, []), (two, ["--cases", str(two / "evals" / "cases.jsonl")])], start=1
    ):
        monkeypatch.chdir(checkout / "evals")  # from a subfolder, named absolute: the same
        part = str(tmp_path / f"shard-{index}.json")
        ran = CliRunner().invoke(eval_cmd, [*flags, "--shard", f"{index}/2", "--out", part])
        assert ran.exit_code == 0, ran.output
        parts.append(part)
    info = json.loads(Path(parts[1]).read_text("utf-8"))["eval"]
    assert (info["fixtures"], info["cases_file"]) == ("evals/fixtures.jsonl", "evals/cases.jsonl")
    assert info["prices"]["source"] == "replaygate/evals/data/prices.toml"
    assert str(tmp_path) not in json.dumps(info)
    merged = tmp_path / "merged.json"
    done = CliRunner().invoke(eval_cmd, ["merge", *parts, "--out", str(merged), "--no-history"])
    assert done.exit_code == 0, done.output
    assert json.loads(merged.read_text("utf-8"))["eval"]["fixtures"] == "evals/fixtures.jsonl"
    baseline = update_baseline(tmp_path / "baseline.json", load_eval_results(merged), reason="x")
    assert baseline.reference.source == str(tmp_path / "baseline.json")
    source = json.loads((tmp_path / "baseline.json").read_text("utf-8"))["source"]
    assert (source["fixtures"], source["cases_file"]) == (
        "evals/fixtures.jsonl",
        "evals/cases.jsonl",
    )
    for index, checkout in enumerate((one, two)):  # as a replaygate that named them absolute
        document = json.loads(Path(parts[index]).read_text("utf-8"))
        for key, name in (
            ("fixtures", "evals/fixtures.jsonl"),
            ("cases_file", "evals/cases.jsonl"),
        ):
            document["eval"][key] = str(checkout / name)
        document["eval"]["prices"]["source"] = str(checkout / "venv" / "prices.toml")
        Path(parts[index]).write_text(json.dumps(document), "utf-8")
    old = CliRunner().invoke(eval_cmd, ["merge", *parts, "--no-history"])
    assert old.exit_code == 0, old.output
    document = json.loads(Path(parts[1]).read_text("utf-8"))
    document["eval"]["fixtures_digest"] = "0" * 64  # another store: refused, as before
    Path(parts[1]).write_text(json.dumps(document), "utf-8")
    other = CliRunner().invoke(eval_cmd, ["merge", *parts, "--no-history"])
    assert other.exit_code == 2
    assert "replayed other fixtures than" in other.output


@pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")
@pytest.mark.slow  # the eval runner's whole flow
def test_a_price_table_given_by_prices_is_named_from_the_project_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path / "project")
    (project / "evals" / "prices.toml").write_text(
        '"claude-sonnet-4-5" = { input = 3.0, output = 15.0 }\n', "utf-8"
    )
    monkeypatch.chdir(project / "evals")  # given from a subfolder, relative to it
    out = tmp_path / "results.json"
    ran = CliRunner().invoke(eval_cmd, ["--prices", "prices.toml", "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    source = json.loads(out.read_text("utf-8"))["eval"]["prices"]["source"]
    assert source == "evals/prices.toml over replaygate/evals/data/prices.toml"


def test_a_merge_written_into_another_project_appends_to_the_shards_project_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `eval merge shard-*.json --out ../other/results.json` appended the run to the
    # history of the project holding --out (another suite's), and named the shards by
    # their absolute paths, where the shards' own project's history got nothing
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for project in (ours, theirs):
        project.mkdir()
        (project / "pyproject.toml").write_text('[tool.replaygate]\nhistory = "h.db"\n', "utf-8")
    parts = shard_files(ours, list("abcde"), 2)
    monkeypatch.chdir(ours)
    out = theirs / "results.json"
    done = CliRunner().invoke(eval_cmd, ["merge", *(p.name for p in parts), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert f"appended to {ours / 'h.db'}" in done.output
    assert not (theirs / "h.db").exists()
    shards = json.loads(out.read_text("utf-8"))["eval"]["shards"]
    assert [s["file"] for s in shards] == ["shard-1.json", "shard-2.json"]


def test_a_history_given_to_a_shard_is_refused_not_passed_over(tmp_path: Path) -> None:
    # `eval --shard 1/2 --history h.db` ran, appended nothing and said nothing of h.db
    history = tmp_path / "h.db"
    args = ["--shard", "1/2", "--out", str(tmp_path / "s1.json"), "--history", str(history)]
    done = CliRunner().invoke(eval_cmd, args)
    assert done.exit_code == 2, done.output
    assert (
        f"Error: --history {history} with --shard: a shard appends nothing to the history"
    ) in done.output
    assert "give --history to `replaygate eval merge`" in done.output
    assert not history.exists() and not (tmp_path / "s1.json").exists()


def test_shards_recorded_from_two_sources_are_two_runs() -> None:
    # a shard recorded from the simulator with another --seed (or from the live API)
    # merged with the others into one run that no recording made
    def recorded(index: int, source: str) -> EvalResults:
        shard = {"index": index, "count": 2, "cases": 0, "positions": []}
        return EvalResults((), {"mode": "record-missing", "recording": source, "shard": shard})

    same = [recorded(1, "the simulator, seed 7"), recorded(2, "the simulator, seed 7")]
    assert "recording" not in merge(same, ["s1.json", "s2.json"]).info  # as a serial run
    for other in ("the simulator, seed 8", "live"):
        parts = [recorded(1, "the simulator, seed 7"), recorded(2, other)]
        with pytest.raises(ResultsError) as refused:
            merge(parts, ["s1.json", "s2.json"])
        assert str(refused.value) == (
            f"s2.json: recording is {other!r}, but 'the simulator, seed 7' in s1.json: these "
            "shards come from different runs"
        )
