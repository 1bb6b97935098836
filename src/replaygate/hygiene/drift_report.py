"""The drift report as text."""

from __future__ import annotations

from replaygate.hygiene.drift import DriftReport, InterfaceDrift


def render_drift(report: DriftReport) -> str:
    """The report for a terminal or a file."""
    if report.mode == "live":
        new, old = "live", "fixtures"
        head = (
            f"drift: {report.path} vs {report.other} "
            f"({len(report.sampled)} request(s) re-sent, seed {report.seed})"
        )
    else:
        new, old = report.other, report.path
        head = f"drift: {report.path} vs {report.other}"
    out = [head]
    for item in report.interfaces:
        out.append(
            f"{item.interface}: {item.old_responses} response(s) from {old}, "
            f"{item.new_responses} from {new}{_how(report, item)}"
        )
        if not item.drifted:
            out.append("  same fields")
            continue
        if item.only_new:
            out.append(f"  in {new}, not in {old} (the parser may read a field the fixtures lack):")
            out.extend(f"    + {field}" for field in item.only_new)
        if item.only_old:
            out.append(f"  in {old}, not in {new} (the fixtures feed data that no longer comes):")
            out.extend(f"    - {field}" for field in item.only_old)
        if item.retyped:
            out.append(
                f"  of another type in {new} than in {old} "
                "(the parser meets a value the fixtures never give it):"
            )
            out.extend(f"    ~ {r.shown(old, new)}" for r in item.retyped)
    for title, lines in (
        ("re-sent", report.sampled),
        ("errors", report.errors),
        ("compared pooled", report.pooled),
        ("not compared", report.unmatched),
        ("not injected", report.uninjected),
        ("skipped", report.skipped),
    ):
        if lines:
            out.append(f"{title}:")
            out.extend(f"  {line}" for line in lines)
    drifted = report.drifted_interfaces
    if report.verdict is None:
        out.append(f"NOT CHECKED: {'; '.join(_not_checked(report))}, then run drift again")
    else:
        verdict = "DRIFT" if report.drifted else "no drift"
        out.append(f"{verdict}: {drifted} interface(s) drifted")
    return "\n".join(out) + "\n"


def _how(report: DriftReport, item: InterfaceDrift) -> str:
    """How ``--against`` compared the answers counted: paired by request, or pooled."""
    if report.mode == "live":
        return ""
    if item.compared == "pooled":
        return ", pooled (the requests only one side holds)"
    return ", paired by request"


def _not_checked(report: DriftReport) -> list[str]:
    """Why the check did not run whole, and what to do about it."""
    why = []
    if report.errors and report.mode == "live":
        why.append(
            f"{len(report.errors)} request(s) could not be re-sent (errors above); check the "
            "server address, the network and the API key"
        )
    elif report.errors:
        why.append(
            f"{len(report.errors)} recorded answer(s) are not JSON (errors above), so their "
            "requests were not compared; re-record them"
        )
    if report.not_compared:
        why.append(
            f"{report.not_compared} request(s) only one side holds have nothing on the other "
            "side to be compared with (not compared above); record them in both sets, or "
            "compare sets that both hold them"
        )
    if report.answers_not_compared:
        why.append(
            f"{report.answers_not_compared} answer(s) of requests both sides hold have no "
            "answer of the other side to be compared with, of a sample or a store only one "
            "side recorded (not compared above); record them in both sets, as many samples "
            "in the same stores"
        )
    if report.uninjected:
        rules = ", ".join(f"'{rule}'" for rule in report.uninjected)
        why.append(
            f"--sim-drift {rules} changed no answer (not injected above), so the drift it was "
            "to inject was not there to be found; name a path the answers hold"
        )
    return why
