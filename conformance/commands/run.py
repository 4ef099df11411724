"""`conformance run`: run the suite against an adapter and report what it found."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.commands.common import EXIT_FOUND, EXIT_INPUT, EXIT_OK, add_corpus_options, corpus_of
from conformance.engine.wording import plural


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run the suite against an adapter (default: the bundled reference)")
    run.add_argument(
        "--adapter",
        default="reference",
        metavar="SPEC",
        help="'reference', a bug id, module:object or path/to/file.py:object (the current directory is importable)",
    )
    run.add_argument(
        "--harness",
        metavar="COMMAND",
        help="run a client library in any language through the harness protocol (docs/harness.md): the "
        "command that starts its harness, e.g. 'node harnesses/vercel-ai/run.mjs'",
    )
    run.add_argument(
        "case_ids", nargs="*", metavar="CASE_ID", help="only these cases (e.g. openai-chat/constructed/parallel-calls)"
    )
    run.add_argument("--api", action="append", metavar="NAME", help="only cases of this API (repeatable)")
    run.add_argument(
        "-k",
        dest="keyword",
        metavar="EXPR",
        help="only cases whose id matches EXPR, as pytest's -k: substrings joined by and, or, not (e.g. 'weather and "
        "not gemini')",
    )
    run.add_argument("--report", metavar="PATH", help="write the results JSON here")
    run.add_argument("-v", "--verbose", action="store_true", help="list every passing and skipped case")
    run.add_argument(
        "--fail-on-warnings", action="store_true", help="exit 1 when a case has a warning-severity violation"
    )
    run.add_argument(
        "--timeout", type=float, default=60.0, metavar="SECONDS", help="seconds a case may run (0: no limit)"
    )
    run.add_argument(
        "--record-mode",
        choices=("none", "once", "new_episodes", "all"),
        default="none",
        help="client adapters: vcrpy record mode (once records cassettes that do not exist yet)",
    )
    run.add_argument("--base-url", metavar="URL", help="client adapters: the provider base URL to use")
    run.add_argument(
        "--in-process",
        action="store_true",
        help="run the adapter in this process, not in a supervised worker process (for debugging it: an "
        "adapter that exits or crashes then ends the run, and one that patches the suite can change its verdict)",
    )
    run.add_argument(
        "--replay",
        choices=("in-process", "server"),
        default="in-process",
        help="client adapters: replay through vcrpy in this process (default) or the replay server over HTTP",
    )
    run.add_argument(
        "--baseline",
        metavar="FILE",
        help="expected failures (YAML or JSON; docs/plugin.md): listed failures are xfail, new ones fail, and an "
        "entry whose case passes fails the run as stale",
    )
    run.add_argument(
        "--update-baseline",
        action="store_true",
        help="rewrite the --baseline file from this run: stale entries dropped, new failures added",
    )
    run.add_argument("--junitxml", metavar="PATH", help="write a JUnit XML file of the cases here")
    run.add_argument(
        "--summary-md", metavar="PATH", help="append the summary as Markdown here (e.g. $GITHUB_STEP_SUMMARY)"
    )
    run.add_argument(
        "--show-requests",
        action="store_true",
        help="print every request the adapter sent in each case beside the recorded one",
    )
    add_corpus_options(run)
    run.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.connectors.adapters import describe, served_apis
    from conformance.connectors.contract import unknown_api_message
    from conformance.engine.outcomes import FAILING, CaseResult
    from conformance.engine.requests_view import requests_text
    from conformance.reports.guidance import next_steps, opening
    from conformance.reports.junit import write_junit
    from conformance.reports.summary_md import summary_markdown, write_summary_md
    from conformance.reports.textreport import (
        case_text,
        nothing_judged,
        skip_lines,
        summary_table,
        warning_lines,
        warnings_summary,
    )
    from conformance.running.baseline import summary_lines, unexplained
    from conformance.running.baseline_options import after_run, load_for_run
    from conformance.running.known_bugs import run_case
    from conformance.running.results import results_document
    from conformance.running.results_merge import write_run_results
    from conformance.running.runner import RunOptions, announce, select
    from conformance.running.selection import SelectionError, select_cases

    unknown = unknown_api_message(args.api or ())
    if unknown:
        print(f"conformance run: --api: {unknown}", file=sys.stderr)
        return EXIT_INPUT
    try:
        baseline = load_for_run(Path(args.baseline) if args.baseline else None, update=args.update_baseline)
    except ValueError as exc:
        print(f"conformance run: --baseline: {exc}", file=sys.stderr)
        return EXIT_INPUT
    corpus = corpus_of(args)
    adapter, bug, close = _adapter(args, corpus)
    served = [api for api in served_apis(adapter) if not args.api or api in args.api]
    options = RunOptions(
        profile=args.profile,
        timeout=args.timeout or None,
        record_mode=args.record_mode,
        base_url=args.base_url,
        replay=args.replay,
        show_requests=args.show_requests,
    )
    results: list[CaseResult] = []
    try:
        selected = select_cases(select(corpus, args.api or None), args.case_ids, args.keyword)
    except SelectionError as exc:
        close()
        print(f"conformance run: {exc}", file=sys.stderr)
        return EXIT_INPUT
    narrowed = bool(args.api or args.case_ids or args.keyword)
    who = f"{bug.id} (a known bug's reproduction)" if bug else f"{adapter.name} {adapter.version}"
    mode = "harness" if args.harness else ("in this process" if args.in_process else "isolated")
    ran_as = {"harness": "through its harness", "in this process": "in this process", "isolated": "in a worker process"}
    print(opening(who, ran_as[mode], [s.api for s in selected if s.api in served], narrowed), flush=True)
    try:
        for position, scenario in enumerate(selected):
            announce(adapter, ((selected[k], options) for k in range(position + 1, len(selected))))
            result = run_case(adapter, scenario, corpus, options, bug)
            if baseline is not None:
                baseline.apply(result)
            results.append(result)
            if result.outcome in FAILING:
                print(case_text(result, adapter.name), end="\n\n", flush=True)
                if args.show_requests:
                    print(requests_text(result.requests or ()), end="\n\n", flush=True)
                continue
            if args.verbose or result.outcome not in ("pass", "skip"):
                print(f"{result.case_id}: {result.outcome.upper()}" + (f": {result.summary}" if result.summary else ""))
            if args.show_requests and result.requests is not None:  # every outcome's, not only a failure's
                print(f"{result.case_id}: the requests sent\n{requests_text(result.requests)}", end="\n\n", flush=True)
            for line in warning_lines([result]):
                print(line, flush=True)
    except KeyboardInterrupt:
        # Stopped by the user: what ran is reported, the rest is not-run, never a silent pass.
        done = {r.case_id for r in results}
        results += [
            CaseResult(s.id, s.api, "not-run", summary="the run was interrupted before this case")
            for s in selected
            if s.id not in done
        ]
        print("interrupted: the cases not run are reported as not-run", file=sys.stderr)
    finally:
        close()
    revision = corpus.revision()  # hashes every corpus file: once
    print(f"adapter: {who}   profile: {args.profile}   ran: {mode}   corpus: {revision}")
    print(summary_table(results, served, selected=narrowed))
    if not args.verbose:
        for line in skip_lines(r for r in results if r.api in served):
            print(line)
    warned = warnings_summary(results)
    if warned:
        print(warned)
    if args.report:
        document = results_document(
            results, adapter=describe(adapter, bug), corpus_revision=revision, profile=args.profile, apis=args.api
        )
        written = write_run_results(Path(args.report), document)
        print(f"results: {written.path}" + (f" ({written.note})" if written.note else ""))
    gate = nothing_judged(results, served)
    if gate is None and args.fail_on_warnings and warned:
        gate = f"--fail-on-warnings: {warned}"
    notes: list[str] = []
    if args.baseline:
        if baseline is not None:
            notes += summary_lines(baseline, results, corpus.scenarios)
            pending = unexplained(baseline)
            if args.fail_on_warnings and pending:
                entries = plural(len(pending), "baseline entry", "baseline entries")
                gate = gate or f"--fail-on-warnings: {entries} give no reason but the generated placeholder"
        stale, note = after_run(
            baseline, Path(args.baseline), results, corpus.scenarios, update=args.update_baseline, adapter=adapter.name
        )
        gate = gate or stale
        notes += [note] if note else []
    for line in notes:
        print(line)
    failing = [r for r in results if r.outcome in FAILING and r.api in served]
    verdict = (
        f"FAILED: {gate}" if gate else (f"FAILED: {plural(len(failing), 'case')} failing" if failing else "passed")
    )
    if args.junitxml:
        write_junit(Path(args.junitxml), results, adapter.name)
        print(f"junit xml: {args.junitxml}")
    if args.summary_md:
        text = summary_markdown(results, adapter=who, served=served, verdict=verdict, notes=notes)
        write_summary_md(Path(args.summary_md), text)
    failing_ids = [r.case_id for r in failing]
    for line in next_steps(_rerun_command(args), failing_ids, args.baseline) if failing_ids or not gate else ():
        print(line)
    if gate:
        print(f"FAILED: {gate}")
        return EXIT_FOUND
    return EXIT_FOUND if any(r.outcome in FAILING for r in results) else EXIT_OK


def _rerun_command(args: argparse.Namespace) -> list[str]:
    """`conformance run` with the options that choose this run's adapter and corpus."""
    command = ["conformance", "run"]
    if args.harness:
        command += ["--harness", args.harness]
    elif args.adapter != "reference":
        command += ["--adapter", args.adapter]
    for flag, values in (("--cases", args.cases), ("--cassettes", args.cassettes)):
        for value in values or ():
            command += [flag, value]
    return command


def _adapter(args: argparse.Namespace, corpus: Any) -> tuple[Any, Any, Callable[[], None]]:
    """The adapter of a run, the known bug when it is a bug's reproduction, and how to release it.

    By default an isolated worker process runs the adapter, so that nothing it does (an exit, a crash,
    a hang in C code) ends the run; `--in-process` runs it here; `--harness` runs a program in any
    language through the harness protocol.
    """
    from conformance.connectors.adapters import BUNDLED, resolve

    if args.harness:
        from conformance.connectors.harness import HarnessAdapter

        harness = HarnessAdapter(args.harness)
        return harness, None, harness.close
    spec = args.adapter.strip()
    if args.in_process:
        resolved = resolve(spec, corpus=corpus if ":" not in spec else None, base=Path.cwd())
        return resolved.adapter, resolved.bug, lambda: None
    from conformance.running.isolation import IsolatedAdapter
    from conformance.running.worker_process import Worker

    bug = corpus.bugs.get(spec) if ":" not in spec and spec not in BUNDLED else None
    worker = Worker([Path(p) for p in args.cases or ()], [Path(p) for p in args.cassettes or ()])
    try:
        return IsolatedAdapter(spec, worker), bug, worker.close
    except BaseException:
        worker.close()
        raise


def parser() -> argparse.ArgumentParser:
    """The parser of `conformance run`, whose options the docs list."""
    sub = argparse.ArgumentParser(prog="conformance").add_subparsers()
    register(sub)
    run: argparse.ArgumentParser = sub.choices["run"]
    return run
