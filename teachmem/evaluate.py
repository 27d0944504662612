"""Command line: ``python -m teachmem.evaluate --help``.

Taught in notebooks/08b_evaluate_on_locomo.ipynb.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from teachmem.lab.evaluation.scenario_scores import default_strategies, evaluate
from teachmem.lab.evaluation.locomo import DEFAULT_KS, LOCOMO_SAMPLE, LONG_CONVERSATIONS, LocomoError, evidence_recall, load_locomo
from teachmem.lab.evaluation.recall_over_time import fed_recall, halves
from teachmem.core.subword import EMBEDDERS
from teachmem.lab.scenarios import ScenarioError, list_scenarios
from teachmem.memory.semantic import SCORINGS, SemanticMemoryStore

DESCRIPTION = """\
Score memory strategies on the built-in scenarios, or measure the evidence
recall@k of the default SemanticMemoryStore on a LoCoMo file.

Scenario metrics are defined in teachmem.lab.evaluation.scenario_scores's docstring.

recall@k: every turn of a LoCoMo conversation is stored as "speaker: text" in
a fresh SemanticMemoryStore (default settings); each question is the query.
An evidence id is valid when it equals the dia_id of a turn of that
conversation (duplicates count once). Per question with at least one valid
id: the share of its valid evidence ids among the dia_ids of the top k
retrieved turns. Averaged over those questions (macro), overall and per
category. Questions without evidence or without a valid id are skipped and
counted; invalid ids are dropped and counted.

--fed: each turn goes through add(role, "speaker: text", turn=, timestamp=)
with its session's real date, as an application feeds a store, and the
questions come after the last session; strict recall@k, tolerant recall@k (a
retrieved neighbour, one turn off in the same session, counts) and recall
within 500 / 1,000 / 2,000 tokens are printed for each half of the
conversations, so that settings tuned on one half show on the other
(defined in teachmem.lab.evaluation.recall_over_time).
"""

EXAMPLES = f"""\
examples:
  python -m teachmem.evaluate --scenario all
  python -m teachmem.evaluate --scenario project_30,forget_address --strategies buffer,window
  python -m teachmem.evaluate --locomo PATH/TO/locomo10.json --k 10
  python -m teachmem.evaluate --locomo sample --k 1,5,10,20 --json
  python -m teachmem.evaluate --locomo long --fed --k 10 --scoring product
  python -m teachmem.evaluate --locomo long --fed --k 10 --embedder minilm

built-in scenarios: {", ".join(list_scenarios())}
"sample" stands for the bundled sample file {LOCOMO_SAMPLE.name}, "long" for
{LONG_CONVERSATIONS.name} (eight conversations over seven to eleven months)
"""
BUNDLED = {"sample": LOCOMO_SAMPLE, "long": LONG_CONVERSATIONS}


def _ks(values: list[str]) -> list[int]:
    ks = []
    for value in values:
        for part in value.split(","):
            if not part.strip().isdigit() or int(part) < 1:
                raise argparse.ArgumentTypeError(f"--k takes positive integers, got {part!r}")
            ks.append(int(part))
    return ks


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m teachmem.evaluate", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", metavar="NAMES",
                        help='"all", or scenario names / JSON paths separated by commas (default: all, '
                             "unless --locomo is given)")
    parser.add_argument("--strategies", metavar="NAMES",
                        help="strategies to score, separated by commas (default: every one notebook 07 compares)")
    parser.add_argument("--locomo", metavar="PATH",
                        help='a LoCoMo JSON file, "sample" for the bundled sample, "long" for the long conversations')
    parser.add_argument("--fed", action="store_true",
                        help="with --locomo: feed turns through add() with their real dates; strict, tolerant and "
                             "budgeted recall on each half")
    parser.add_argument("--scoring", choices=sorted(SCORINGS), default=None,
                        help="with --fed: the store's score (default: the store's own default)")
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS), default="subword",
                        help="with --fed: the store's embedder, by name; minilm (all-MiniLM-L6-v2 in numpy) is fused "
                             "with BM25 like the others (default: subword, the hand-built one)")
    parser.add_argument("--no-neighbour-words", action="store_true",
                        help="with --fed: index each turn by its own words only (by default a turn also carries "
                             "the words of the two turns before and after it)")
    parser.add_argument("--k", nargs="+", default=[",".join(map(str, DEFAULT_KS))], metavar="K",
                        help="the k of recall@k: one or more, e.g. --k 10 or --k 1,5,10,20 "
                             f"(default: {','.join(map(str, DEFAULT_KS))})")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of tables")
    parser.add_argument("--no-progress", action="store_true", help="never show progress bars")
    return parser


def _scenarios(parser: argparse.ArgumentParser, args: argparse.Namespace, progress: bool | None):
    strategies = default_strategies()
    if args.strategies:
        names = [n.strip() for n in args.strategies.split(",") if n.strip()]
        unknown = [n for n in names if n not in strategies]
        if unknown or not names:
            parser.error(f"--strategies: unknown {unknown or names}; choose from {', '.join(strategies)}")
        strategies = {n: strategies[n] for n in names}
    names = (args.scenario or "all").split(",")
    board = evaluate(strategies, "all" if names == ["all"] else [n.strip() for n in names], progress=progress)
    return board.as_dict() if args.json else str(board)


def _locomo(args: argparse.Namespace, ks: list[int], progress: bool | None):
    path = BUNDLED.get(args.locomo, args.locomo)
    name = f"the bundled file {path.name}" if args.locomo in BUNDLED else args.locomo
    conversations = load_locomo(path)
    if args.fed:
        options = {"embedder": args.embedder, "neighbour_words": not args.no_neighbour_words,
                   **({} if args.scoring is None else {"scoring": args.scoring})}
        reports = [fed_recall(half, lambda clock: SemanticMemoryStore(clock=clock, **options), ks)
                   for half in halves(conversations) if half]
        if args.json:
            return {"file": name, "halves": [r.as_dict() for r in reports]}
        return "\n\n".join(f"SemanticMemoryStore fed turn by turn with real dates, half {i} of the conversations"
                             f"\n(scoring: {args.scoring or 'default'}, embedder: {args.embedder}, neighbour words: "
                             f"{'off' if args.no_neighbour_words else 'on'})\nfile: {name}\n{r}"
                             for i, r in enumerate(reports, 1))
    report = evidence_recall(conversations, ks, progress=progress)
    return ({"file": name, **report.as_dict()} if args.json else
            f"LoCoMo evidence recall of SemanticMemoryStore, each turn stored as "
            f"\"speaker: text\"\n(macro mean over scored questions)\nfile: {name}\n{report}")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        ks = _ks(args.k)
    except argparse.ArgumentTypeError as err:
        parser.error(str(err))
    if (args.fed or args.scoring or args.embedder != "subword" or args.no_neighbour_words) and not (
            args.locomo and args.fed):
        parser.error("--scoring, --embedder and --no-neighbour-words go with --fed, which measures a LoCoMo file: "
                     "give --locomo FILE --fed")
    progress = False if args.no_progress else None
    out = {}
    try:
        if args.scenario or not args.locomo:
            out["scenarios"] = _scenarios(parser, args, progress)
        if args.locomo:
            out["locomo"] = _locomo(args, ks, progress)
    except (ScenarioError, LocomoError, FileNotFoundError, ValueError, ImportError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        print(json.dumps(out, indent=1, sort_keys=True) if args.json else "\n\n".join(map(str, out.values())), flush=True)
    except BrokenPipeError:         # e.g. piped into `head`: stop quietly, as other command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
