"""Eval suites: cases, scorers, a runner, results, a baseline gate, history, upgrades.

The loop of seed 000 (12.1 to 12.3) and seed 003 (chapters 6 and 7): run every eval
case ``samples`` times through the agent (replayed from fixtures by default), score
success, citations, cost and steps, gate the scores against a committed baseline,
keep a history, and classify the failures of a model upgrade::

    from replaygate.evals import (GateConfig, Reference, load_agent, load_eval_cases,
                                  load_reference, run_eval, run_gate)

    results = run_eval(load_eval_cases("evals/cases.jsonl"), "evals/fixtures.jsonl",
                       agent=load_agent("my_project.agent:answer"))
    report = run_gate(load_reference("evals/baseline.json"), Reference.of(results, "now"),
                      GateConfig())
    print(report.text())
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replaygate._lazy import lazy_names

if TYPE_CHECKING:
    from replaygate.evals.agents import Agent, AgentEntry, load_agent
    from replaygate.evals.baseline import Baseline, load_baseline, update_baseline
    from replaygate.evals.cases import EvalCase, load_eval_cases
    from replaygate.evals.config import (
        ChangeClass,
        CIConfig,
        Config,
        GateConfig,
        ReportConfig,
        Stage,
        load_config,
    )
    from replaygate.evals.errors import (
        AgentLoadError,
        AgentRunError,
        BaselineError,
        CaseFormatError,
        ConfigError,
        EvalError,
        HistoryError,
        LimitError,
        PriceError,
        ResultsError,
    )
    from replaygate.evals.expectations import checks_for
    from replaygate.evals.gate import GateReport, parse_limits, run_gate
    from replaygate.evals.history import History, HistoryRun, read_export
    from replaygate.evals.metrics import METRICS, Metric
    from replaygate.evals.prices import (
        Price,
        PriceTable,
        load_price_file,
        shipped_prices,
        with_shipped,
    )
    from replaygate.evals.recording import RecordPlan, RecordRecipe

    Recording = RecordPlan  # its old name, kept for a release
    from replaygate.evals.reference import CaseSummary, Reference, load_reference
    from replaygate.evals.results import CaseResult, EvalResults, load_eval_results
    from replaygate.evals.runner import run_eval
    from replaygate.evals.scorers import CaseCounts, metrics_of, score_case
    from replaygate.evals.upgrade import UpgradeReport, classify_upgrade

_EXPORTS = {
    "Agent": "replaygate.evals.agents",
    "AgentEntry": "replaygate.evals.agents",
    "AgentLoadError": "replaygate.evals.errors",
    "AgentRunError": "replaygate.evals.errors",
    "Baseline": "replaygate.evals.baseline",
    "BaselineError": "replaygate.evals.errors",
    "CaseCounts": "replaygate.evals.scorers",
    "CaseFormatError": "replaygate.evals.errors",
    "CaseResult": "replaygate.evals.results",
    "CaseSummary": "replaygate.evals.reference",
    "ChangeClass": "replaygate.evals.config",
    "checks_for": "replaygate.evals.expectations",
    "CIConfig": "replaygate.evals.config",
    "classify_upgrade": "replaygate.evals.upgrade",
    "Config": "replaygate.evals.config",
    "ConfigError": "replaygate.evals.errors",
    "EvalCase": "replaygate.evals.cases",
    "EvalError": "replaygate.evals.errors",
    "EvalResults": "replaygate.evals.results",
    "GateConfig": "replaygate.evals.config",
    "GateReport": "replaygate.evals.gate",
    "History": "replaygate.evals.history",
    "HistoryError": "replaygate.evals.errors",
    "HistoryRun": "replaygate.evals.history",
    "LimitError": "replaygate.evals.errors",
    "load_agent": "replaygate.evals.agents",
    "load_baseline": "replaygate.evals.baseline",
    "load_config": "replaygate.evals.config",
    "load_eval_cases": "replaygate.evals.cases",
    "load_eval_results": "replaygate.evals.results",
    "load_price_file": "replaygate.evals.prices",
    "load_reference": "replaygate.evals.reference",
    "Metric": "replaygate.evals.metrics",
    "METRICS": "replaygate.evals.metrics",
    "metrics_of": "replaygate.evals.scorers",
    "parse_limits": "replaygate.evals.gate",
    "Price": "replaygate.evals.prices",
    "PriceError": "replaygate.evals.errors",
    "PriceTable": "replaygate.evals.prices",
    "read_export": "replaygate.evals.history",
    "RecordPlan": "replaygate.evals.recording",
    "RecordRecipe": "replaygate.evals.recording",
    "Reference": "replaygate.evals.reference",
    "ReportConfig": "replaygate.evals.config",
    "ResultsError": "replaygate.evals.errors",
    "run_eval": "replaygate.evals.runner",
    "run_gate": "replaygate.evals.gate",
    "score_case": "replaygate.evals.scorers",
    "shipped_prices": "replaygate.evals.prices",
    "Stage": "replaygate.evals.config",
    "update_baseline": "replaygate.evals.baseline",
    "UpgradeReport": "replaygate.evals.upgrade",
    "with_shipped": "replaygate.evals.prices",
}
"""Each public name and the module it is imported from on first use."""

__all__ = [
    "METRICS",
    "Agent",
    "AgentEntry",
    "AgentLoadError",
    "AgentRunError",
    "Baseline",
    "BaselineError",
    "CIConfig",
    "CaseCounts",
    "CaseFormatError",
    "CaseResult",
    "CaseSummary",
    "ChangeClass",
    "Config",
    "ConfigError",
    "EvalCase",
    "EvalError",
    "EvalResults",
    "GateConfig",
    "GateReport",
    "History",
    "HistoryError",
    "HistoryRun",
    "LimitError",
    "Metric",
    "Price",
    "PriceError",
    "PriceTable",
    "RecordPlan",
    "RecordRecipe",
    "Reference",
    "ReportConfig",
    "ResultsError",
    "Stage",
    "UpgradeReport",
    "checks_for",
    "classify_upgrade",
    "load_agent",
    "load_baseline",
    "load_config",
    "load_eval_cases",
    "load_eval_results",
    "load_price_file",
    "load_reference",
    "metrics_of",
    "parse_limits",
    "read_export",
    "run_eval",
    "run_gate",
    "score_case",
    "shipped_prices",
    "update_baseline",
    "with_shipped",
]

if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__, __dir__ = lazy_names(__name__, _EXPORTS, renamed={"Recording": "RecordPlan"})
