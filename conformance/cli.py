"""The `conformance` command: thin wrappers over the library, one function per subcommand.

Exit codes: 0 success; 1 the thing checked has problems (failing cases, a run that judged no
case, violations, a bug that does not reproduce, corpus problems); 2 the input cannot be used
(unreadable file, bad arguments, unknown API, an adapter that cannot be loaded, unknown bug id).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from conformance import __version__
from conformance.engine.wording import plural

EXIT_OK, EXIT_FOUND, EXIT_INPUT = 0, 1, 2


def _corpus(args: argparse.Namespace, *, wire_types_only: bool = False):  # type: ignore[no-untyped-def]
    from conformance.corpus.loading import load_corpus

    cases, cassettes = [Path(p) for p in args.cases or ()], [Path(p) for p in args.cassettes or ()]
    return load_corpus(cases, cassettes, wire_types_only=wire_types_only)


def cmd_run(args: argparse.Namespace) -> int:
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
    corpus = _corpus(args)
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


def cmd_serve(args: argparse.Namespace) -> int:
    from conformance.connectors.serving import ScenarioServer
    from conformance.engine.outcomes import FAILING
    from conformance.engine.requests_view import requests_text
    from conformance.reports.textreport import case_text, nothing_judged, summary_table
    from conformance.running.results import served_document, write_results

    corpus = _corpus(args)
    wanted = list(args.scenario_ids or ())
    unknown = [i for i in wanted if i not in corpus.scenarios]
    if unknown:
        print(f"conformance serve: no scenario {', '.join(map(repr, unknown))}", file=sys.stderr)
        return EXIT_INPUT
    chosen = [corpus.scenarios[i] for i in wanted]
    for api in args.api or ():
        chosen += [s for s in sorted(corpus.scenarios.values(), key=lambda s: s.id) if s.api == api]
    if not chosen:
        print("conformance serve: name the scenarios to serve (SCENARIO_ID... or --api NAME)", file=sys.stderr)
        return EXIT_INPUT
    stop = _stop_on_signals()  # before the listing is printed: a client may signal as soon as it reads it
    server = ScenarioServer(corpus, args.profile, args.host, args.port)
    server.server.results = lambda: served_document(server)  # what /_conformance/results answers
    try:
        server.start()
    except OSError as exc:
        print(f"conformance serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    try:
        listings = server.add_all({s.id: s for s in chosen}.values())
        print(f"listening on {server.url}", flush=True)
        for listing in listings:
            print(f"{listing.scenario} {listing.api} {listing.base_url}", flush=True)
        _wait_for_stop(stop)
        results = server.verdicts(show_requests=args.show_requests)
    finally:
        server.stop()
    for result in results:
        # Each failing case in full, as `conformance run` prints it: the violations, not counts only.
        if result.outcome in FAILING:
            print(case_text(result, "serve"), end="\n\n", file=sys.stderr)
        if args.show_requests and result.requests is not None and result.outcome != "not-run":
            print(f"{result.case_id}: the requests received", file=sys.stderr)
            print(requests_text(result.requests), end="\n\n", file=sys.stderr)
    print(summary_table(results), file=sys.stderr)
    if args.report:
        write_results(Path(args.report), served_document(server, results))
        print(f"results: {args.report}", file=sys.stderr)
    gate = nothing_judged(results)
    if gate:
        # No client came: a CI step that started the server and never reached it has tested nothing.
        print(f"FAILED: {gate}", file=sys.stderr)
        return EXIT_FOUND
    return EXIT_FOUND if any(r.outcome in FAILING for r in results) else EXIT_OK


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def _wait_for_stop(stop: threading.Event) -> None:
    """Until SIGINT or SIGTERM, or until standard input closes when it is a pipe or a terminal (a
    supervisor that closes it ends the server; /dev/null, as a background job gets, does not)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
        watch = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or sys.stdin.isatty()
    except (OSError, ValueError):
        watch = False
    if watch:

        def read_until_closed() -> None:
            # os.read, not sys.stdin: a daemon thread blocked inside a buffered reader aborts the
            # interpreter at exit.
            fd = sys.stdin.fileno()
            with contextlib.suppress(OSError):
                while os.read(fd, 65536):
                    pass
            stop.set()

        threading.Thread(target=read_until_closed, name="conformance-serve-stdin", daemon=True).start()
    while not stop.wait(0.5):
        pass


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


def cmd_reproduce(args: argparse.Namespace) -> int:
    from conformance.reports.textreport import diff_text, violation_text
    from conformance.running.runner import reproduce

    corpus = _corpus(args)
    bug = corpus.bugs.get(args.bug_id)
    if bug is None:
        print(
            f"conformance reproduce: no bug case {args.bug_id!r}; known: {', '.join(sorted(corpus.bugs))}",
            file=sys.stderr,
        )
        return EXIT_INPUT
    from conformance.connectors.adapters import resolve_reproduction
    from conformance.connectors.harness import bug_harness
    from conformance.reports.reproduction import Ran, headline, verdict

    harness, ran_by = (None, f"{bug.reproduction} (--no-harness)") if args.no_harness else bug_harness(bug, corpus)
    if harness is not None:
        bug = harness.bug
    adapter = harness.adapter if harness is not None else resolve_reproduction(bug.reproduction)
    real = harness is not None
    ran = Ran(adapter.name, adapter.version, real=True) if real else Ran(bug.project, adapter.version, real=False)
    try:
        result = reproduce(bug, corpus, args.profile, adapter)
    finally:
        if harness is not None:
            harness.adapter.close()
    print(headline(bug, ran))
    print(f"  report: {bug.report}")
    for fix in bug.fixes:
        print(f"  fix:    {fix}")
    print(f"  scenario: {bug.scenario}   reproduction: {ran_by}")
    if bug.provider_error:
        print(f"  the provider answered: {bug.provider_error['text']}")
    print()
    if result.outcome == "error":
        print(f"the reproduction errored: {result.summary}")
        if result.detail:
            print(result.detail)
        return EXIT_FOUND
    for i, violation in enumerate(result.violations):
        print(violation_text(violation, result.api, result.quotes.get(i)))
    if result.diff:
        print()
        print(diff_text(result.diff))
    print()
    print(f"expected: {', '.join(bug.expected)}")
    print(verdict(ran, result.outcome == "pass", result.summary))
    return EXIT_OK if result.outcome == "pass" else EXIT_FOUND


def cmd_lint(args: argparse.Namespace) -> int:
    from conformance.lint import lint_path, lint_verdict
    from conformance.recordings.cassette import CassetteError
    from conformance.reports.textreport import violation_text

    corpus = _corpus(args, wire_types_only=True)  # the rules read wire types; lint plays no scenario
    status = EXIT_OK
    for raw in args.cassettes_to_lint:
        try:
            report = lint_path(Path(raw), corpus, args.profile)
        except CassetteError as exc:
            print(
                f"{raw}: unreadable: {exc.message}"
                + (f" (interaction {exc.interaction})" if exc.interaction is not None else "")
            )
            status = EXIT_INPUT
            continue
        checked = ", ".join(f"{api} ({n})" for api, n in sorted(report.checked.items()))
        if not checked:
            verdict = "nothing checked"
        else:
            verdict = (
                f"checked {checked}: {lint_verdict(len(report.errors), len(report.violations) - len(report.errors))}"
            )
        print(f"{raw}: {report.interactions} interaction(s); {verdict}")
        for line in report.unchecked:
            print(f"  not checked: {line}")
        for line in report.unreadable:
            print(f"  unreadable: {line}")
        if report.unreadable:
            status = EXIT_INPUT
        for line in report.notes:
            print(f"  note: {line}")
        for api, violation in report.violations:
            print(violation_text(violation, api, report.quote(violation)))
        if report.errors and status == EXIT_OK:
            status = EXIT_FOUND
    return status


def cmd_import(args: argparse.Namespace) -> int:
    from conformance.importer import Options, Source, import_paths

    if (args.source_repo is None) != (args.licence is None) or (args.source_repo and not args.source_commit):
        print(
            "conformance import: --source-repo needs --source-commit and --licence (a third-party recording "
            "names where it comes from and under which licence)",
            file=sys.stderr,
        )
        return EXIT_INPUT
    if args.source_repo and not args.revoice:
        print(
            "conformance import: a third-party recording enters a corpus re-voiced: add --revoice (your own "
            "recordings keep their texts, the default)",
            file=sys.stderr,
        )
        return EXIT_INPUT
    if args.source_path and len(args.cassettes_to_import) > 1:
        print("conformance import: --source-path names one file; import one cassette at a time", file=sys.stderr)
        return EXIT_INPUT
    source = Source(
        repository=args.source_repo,
        path=args.source_path,
        commit=args.source_commit,
        licence=args.licence,
        edited=args.edited,
        **({"read": args.read} if args.read else {}),
    )
    options = Options(
        output=Path(args.output),
        source=source,
        api=args.api,
        case_id=args.id,
        conversations=tuple(args.conversation or ()),
        description=args.description,
        force=args.force,
        revoice=args.revoice,
    )
    reports, unreadable = import_paths([Path(p) for p in args.cassettes_to_import], _corpus(args), options)
    for path, exc in unreadable:
        print(
            f"{path}: unreadable: {exc.message}"
            + (f" (interaction {exc.interaction})" if exc.interaction is not None else "")
        )
    for report in reports:
        print(f"{report.path}: {report.conversations} conversation(s); {len(report.imported)} imported")
        for line in report.skipped:
            print(f"  skipped {line}")
        for imported in report.imported:
            print(f"  imported {imported.case_id} from interactions {imported.interactions}")
            print(f"    {imported.case_path}")
            print(f"    {imported.cassette_path}")
            for note in imported.notes:
                print(f"    note: {note}")
            if imported.reference:
                print(f"    warning: the reference adapter fails it: {imported.reference}")
        for refusal in report.refused:
            print(f"  refused interactions {refusal.interactions}: {refusal.reason}")
    if unreadable:
        return EXIT_INPUT
    return EXIT_OK if all(r.imported for r in reports) else EXIT_FOUND


def cmd_proxy(args: argparse.Namespace) -> int:
    from conformance.proxy import Proxy, Recorder
    from conformance.recordings.recording import Scrubber

    if not args.upstream.startswith(("http://", "https://")):
        shown = Scrubber(from_environment=False).uri(args.upstream)
        print(f"conformance proxy: --upstream {shown!r} is not an http(s) URL", file=sys.stderr)
        return EXIT_INPUT
    cassette = Path(args.cassette)
    if cassette.exists() and not args.force:
        print(f"conformance proxy: {cassette} exists; pass --force to overwrite it", file=sys.stderr)
        return EXIT_INPUT
    stop = _stop_on_signals()
    recorder = Recorder(args.upstream, cassette, _corpus(args), args.profile)
    try:
        proxy = Proxy(recorder, args.port)
    except OSError as exc:
        print(f"conformance proxy: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    proxy.start()
    print(f"listening on {proxy.url}, forwarding to {recorder.shown_upstream}, recording to {cassette}", flush=True)
    try:
        _wait_for_stop(stop)
    finally:
        proxy.stop()
    errors = sum(1 for f in recorder.found if f.violation.severity == "error")
    faults = len(recorder.faults)
    print(
        f"{recorder.recorded} exchange(s) recorded; {len(recorder.found)} violation(s), {errors} error(s);"
        f" {faults} fault(s)"
    )
    # A fault is an exchange that was not recorded or not judged: not a clean session, whatever the rest found.
    return EXIT_INPUT if faults else EXIT_FOUND if errors else EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from conformance.check import check_corpus, summary

    report = check_corpus(
        [Path(p) for p in args.cases or ()], [Path(p) for p in args.cassettes or ()], examples=not args.no_examples
    )
    for problem in report.problems:
        print(problem)
    for note in report.notes:
        print(f"note: {note}")
    print(summary(report))
    return EXIT_FOUND if report.problems else EXIT_OK


def _wire_types(args: argparse.Namespace) -> int:
    from conformance.corpus.loading import load_corpus
    from conformance.reports.wiretypes_render import render, stale_files, write_files
    from conformance.reports.wiretypes_report import COMMAND

    rendered = render(load_corpus())
    output = Path(args.output)
    if not args.check:
        for path in write_files(output, rendered):
            print(f"wrote {path}")
        return EXIT_OK
    stale = stale_files(output, rendered)
    for path in stale:
        print(f"{path}: {'differs from' if path.is_file() else 'missing from'} what `{COMMAND}` generates")
    if stale:
        print(f"stale: run `{COMMAND}" + (f" --output {args.output}`" if args.output != "reports" else "`"))
        return EXIT_FOUND
    print(f"up to date: {', '.join(str(output / name) for name in sorted(rendered))}")
    return EXIT_OK


def cmd_matrix(args: argparse.Namespace) -> int:
    from conformance.reports.matrix import COMMAND
    from conformance.reports.matrix.generate import from_bundled, from_results
    from conformance.reports.matrix.outputs import stale_files, write_files

    if args.wire_types:
        if args.results:
            print("conformance matrix: --wire-types takes no results files", file=sys.stderr)
            return EXIT_INPUT
        return _wire_types(args)
    output = Path(args.output)
    if args.results:
        report = from_results([Path(p) for p in args.results])
    else:
        report = from_bundled(output, progress=lambda line: print(f"warning: {line}", file=sys.stderr))
    for line in report.summaries:
        print(line)
    if not args.check:
        written, removed = write_files(output, report.files)
        for path in written:
            print(f"wrote {path}")
        for path in removed:
            print(f"removed {path}")
        print(f"{len(report.files) - len(written)} of {len(report.files)} files unchanged under {output}")
        return EXIT_OK
    stale = stale_files(output, report.files)
    command = " ".join([COMMAND, *args.results] + ([f"--output {args.output}"] if args.output != "reports" else []))
    for path, why in stale:
        print(f"{path}: {why} what `{command}` generates")
    if stale:
        print(f"stale: run `{command}`")
        return EXIT_FOUND
    print(f"up to date: {len(report.files)} files under {output}")
    return EXIT_OK


def cmd_docs(args: argparse.Namespace) -> int:
    from conformance.docgen import COMMAND, DocsError, stale, write, write_sdk_digest

    docs = Path(args.docs)
    try:
        if args.sdk_results:
            print(f"wrote {write_sdk_digest(docs, Path(args.sdk_results))}")
        corpus = _corpus(args)
        if not args.check:
            written = write(docs, corpus, run_parser())
            print(f"{len(written)} page(s) rewritten under {docs}" if written else f"up to date: {docs}")
            return EXIT_OK
        found = stale(docs, corpus, run_parser())
    except (DocsError, ValueError) as exc:
        print(f"conformance docs: {exc}", file=sys.stderr)
        return EXIT_INPUT
    for path in found:
        print(f"{path}: differs from what `{COMMAND}` generates")
    if found:
        print(f"stale: run `{COMMAND}`")
        return EXIT_FOUND
    print(f"up to date: the generated parts of {docs}")
    return EXIT_OK


def run_parser() -> argparse.ArgumentParser:
    """The parser of `conformance run`, whose options the docs list."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    run: argparse.ArgumentParser = sub.choices["run"]
    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conformance", description="Tool-call id conformance suite.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--cases", action="append", metavar="DIR", help="extra case directory (repeatable)")
        p.add_argument("--cassettes", action="append", metavar="DIR", help="extra cassette directory (repeatable)")
        p.add_argument("--profile", choices=("default", "strict"), default="default", help="rule profile")

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
    common(run)
    run.set_defaults(func=cmd_run)

    serve = sub.add_parser(
        "serve",
        help="play scenarios over HTTP on 127.0.0.1 to a client in any language, and judge what it sends",
    )
    serve.add_argument("scenario_ids", nargs="*", metavar="SCENARIO_ID", help="scenarios to serve")
    serve.add_argument("--api", action="append", help="serve every scenario of this API too (repeatable)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="the port to listen on (default: a free one)")
    serve.add_argument("--report", metavar="PATH", help="write the results JSON here when the server stops")
    serve.add_argument(
        "--show-requests",
        action="store_true",
        help="when the server stops, print every request received beside the recorded one",
    )
    common(serve)
    serve.set_defaults(func=cmd_serve)

    rep = sub.add_parser("reproduce", help="replay a bug case through its reproduction adapter")
    rep.add_argument("bug_id", metavar="BUG-ID")
    rep.add_argument(
        "--no-harness",
        action="store_true",
        help="run the reproduction adapter even where the bug case names a harness for the library itself",
    )
    common(rep)
    rep.set_defaults(func=cmd_reproduce)

    lint = sub.add_parser("lint", help="check recorded cassettes' requests against their responses")
    lint.add_argument("cassettes_to_lint", nargs="+", metavar="CASSETTE")
    common(lint)
    lint.set_defaults(func=cmd_lint)

    imp = sub.add_parser(
        "import",
        help="turn recorded cassettes into scenarios: one per conversation, with a scrubbed copy of its traffic",
    )
    imp.add_argument("cassettes_to_import", nargs="+", metavar="CASSETTE")
    imp.add_argument("--api", help="only the conversations on this API")
    imp.add_argument("--id", help="the scenario id or slug (API/recorded/SLUG); further conversations get -2, -3, ...")
    imp.add_argument(
        "--conversation",
        type=int,
        action="append",
        metavar="N",
        help="only the N-th conversation (1-based; repeatable)",
    )
    imp.add_argument("--description", help="the scenario's description (default: made from the source and turns)")
    imp.add_argument(
        "--output", default=".", metavar="DIR", help="where cases/ and cassettes/ are written (default: .)"
    )
    imp.add_argument("--force", action="store_true", help="replace files that exist")
    imp.add_argument("--source-repo", metavar="OWNER/NAME", help="the public repository the recording comes from")
    imp.add_argument("--source-path", metavar="PATH", help="the recording's path in that repository")
    imp.add_argument("--source-commit", metavar="SHA", help="the commit the recording was read at (40 hex digits)")
    imp.add_argument("--licence", help="the repository's licence (SPDX: MIT, Apache-2.0, BSD-2-Clause, BSD-3-Clause)")
    imp.add_argument("--read", metavar="YYYY-MM-DD", help="the date the recording was read (default: today)")
    imp.add_argument("--edited", metavar="TEXT", help="how the recording was changed by hand, if it was")
    voicing = imp.add_mutually_exclusive_group()
    voicing.add_argument(
        "--revoice",
        action="store_true",
        help="replace every text of the recording by the project's own, keeping its facts (for a recording "
        "contributed to a public corpus; required with --source-repo)",
    )
    voicing.add_argument(
        "--no-revoice",
        dest="revoice",
        action="store_false",
        help="keep the recording's texts as recorded (the default)",
    )
    common(imp)
    imp.set_defaults(func=cmd_import)

    proxy = sub.add_parser(
        "proxy", help="forward to an upstream on 127.0.0.1, record a scrubbed cassette, report violations as they occur"
    )
    proxy.add_argument("--upstream", required=True, metavar="URL", help="where requests are forwarded")
    proxy.add_argument(
        "--cassette", default="proxy-recording.yaml", metavar="PATH", help="the scrubbed cassette written"
    )
    proxy.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    proxy.add_argument("--force", action="store_true", help="overwrite the cassette when it exists")
    common(proxy)
    proxy.set_defaults(func=cmd_proxy)

    check = sub.add_parser("check", help="validate the corpus")
    check.add_argument("--no-examples", action="store_true", help="skip validating examples against SDK models")
    common(check)
    check.set_defaults(func=cmd_check)

    matrix = sub.add_parser(
        "matrix",
        help="regenerate the reports under reports/: the compatibility matrix (of the results files given, or of "
        "the bundled adapters and reports/results/*.json), or with --wire-types the wire-types report",
    )
    matrix.add_argument(
        "results",
        nargs="*",
        metavar="RESULTS",
        help="results JSON files to merge (default: run the bundled adapters and read DIR/results/*.json)",
    )
    matrix.add_argument(
        "--wire-types", action="store_true", help="the CallId proposal's tables and counts, from the wire-type cases"
    )
    matrix.add_argument("--output", metavar="DIR", default="reports", help="where the reports go (default: reports)")
    matrix.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming the files that are not what would be written"
    )
    matrix.set_defaults(func=cmd_matrix)

    docs = sub.add_parser(
        "docs",
        help="regenerate the parts of the docs made from data (scenario lists, option tables, the official "
        "SDKs' failures)",
    )
    docs.add_argument("--docs", metavar="DIR", default="docs", help="the docs directory (default: docs)")
    docs.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming the pages whose generated parts are stale"
    )
    docs.add_argument(
        "--sdk-results",
        metavar="RESULTS",
        help="a results JSON of conformance.clients.official_sdks:ADAPTER: its failures become "
        "DIR/data/official-sdks.json",
    )
    common(docs)
    docs.set_defaults(func=cmd_docs)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from conformance.connectors.contract import AdapterSpecError
    from conformance.corpus.problems import InputError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (AdapterSpecError, InputError) as exc:
        print(f"conformance {args.command}: {exc}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    raise SystemExit(main())
