"""Every exercise of notebook 10: the worked solution passes its checker, a plausible wrong answer fails it,
and an answer that just hands over teachmem's own implementation fails it too."""
import json
import tempfile

import psycopg
import pytest
from psycopg import errors

from conftest import ROOT, fails, load_solutions, passes
from teachmem import PgMemoryStore, local_postgres
from teachmem.lab.storage.pg_rank import RANKED
from teachmem.lab.storage.postgres import connection_gone
from teachmem.lessons import production as lesson

s10 = load_solutions("10_from_laptop_to_production")


def test_10_1_rls_prediction(capsys):
    passes(lesson.check_rls_prediction(s10.rls_prediction), capsys)
    assert "you predicted 30" in fails(lesson.check_rls_prediction(30), capsys)      # maya's rows, as asked
    fails(lesson.check_rls_prediction(1), capsys)                                  # noor's row
    fails(lesson.check_rls_prediction(PgMemoryStore.__len__), capsys)              # code, not a prediction
    fails(lesson.check_rls_prediction("0"), capsys)
    assert not lesson.check_rls_prediction(...)
    assert "not answered yet" in capsys.readouterr().out


def test_10_2_a_query_the_index_can_serve(pg_dsn, capsys):
    passes(lesson.check_index_query(s10.NEAREST, pg_dsn), capsys)
    similarity = "SELECT id FROM items ORDER BY 1 - (embedding <=> %(query)s) DESC LIMIT 5"   # the stub
    said = fails(lesson.check_index_query(similarity, pg_dsn), capsys)
    assert "Seq Scan on items" in said and "What does your ORDER BY sort by?" in said
    assert "<=>" not in said.replace(similarity, "") and "LIMIT" not in said      # a hint, not the answer
    euclidean = "SELECT id FROM items ORDER BY embedding <-> %(query)s LIMIT 5"        # no index for <->
    said = fails(lesson.check_index_query(euclidean, pg_dsn), capsys)
    assert "not used" in said and "sorts every row" in said
    inner = "SELECT id FROM items ORDER BY embedding <#> %(query)s LIMIT 5"          # nor for <#>
    assert "<#>, the negative inner product" in fails(lesson.check_index_query(inner, pg_dsn), capsys)
    farthest = "SELECT id FROM items ORDER BY embedding <=> %(query)s DESC LIMIT 5"   # the wrong way round
    assert "DESC, farthest first" in fails(lesson.check_index_query(farthest, pg_dsn), capsys)
    for every in ("SELECT id FROM items ORDER BY embedding <=> %(query)s",              # 40 rows: ef_search's
                  "SELECT id FROM items ORDER BY 1 - (embedding <=> %(query)s) DESC"):  # 600 rows
        said = fails(lesson.check_index_query(every, pg_dsn), capsys)
        assert "your query returns every row; the index stops early only when told how many" in said
        assert said.count(",") < 5, said                                               # no list of ids
    four = "SELECT id FROM items ORDER BY embedding <=> %(query)s LIMIT 4"
    assert "five nearest" in fails(lesson.check_index_query(four, pg_dsn), capsys)
    fails(lesson.check_index_query(PgMemoryStore.retrieve, pg_dsn), capsys)        # teachmem's own retrieval
    fails(lesson.check_index_query(RANKED.format(filters=""), pg_dsn), capsys)     # teachmem's own SQL
    fails(lesson.check_index_query("SELECT id FROM items ORDER BY embeding <=> %(query)s LIMIT 5", pg_dsn), capsys)
    assert not lesson.check_index_query(..., pg_dsn)
    assert "not answered yet" in capsys.readouterr().out


STOPPED = "the server is stopped (by the last cell, or a kernel restart): "


def test_a_stopped_server_is_said_in_plain_words(tmp_path, capsys):
    """10.2's advice used to be "run section 1's cell again": a fresh server has no schema until section 2 runs,
    so 10.1 then failed with 'role "teachmem_app" does not exist'. Both now say to run section 1 down to here."""
    stopped = f"postgresql://postgres@/postgres?host={tmp_path}&port=5999"      # no server listens there
    said = fails(lesson.check_index_query(s10.NEAREST, stopped), capsys)
    assert STOPPED + "run the cells from section 1 down to this one again" in said
    assert "Traceback" not in said and "OperationalError" not in said and str(tmp_path) not in said
    with lesson.quiet_if_server_stopped():                                   # the 10.1 cell's own connection
        psycopg.connect(stopped)
        raise AssertionError("not reached: the connection fails")


def test_a_server_stopped_under_an_open_connection_stays_quiet(monkeypatch):
    monkeypatch.delenv("TEACHMEM_PG_DSN", raising=False)            # a server of this test's own, to stop
    with tempfile.TemporaryDirectory(prefix="teachmem-pg-") as folder, local_postgres(folder) as server:
        conn = psycopg.connect(server.dsn, autocommit=True)
        server.stop()
        for attempt in (lambda: conn.execute("SELECT 1"),                 # AdminShutdown (57P01)
                        lambda: conn.execute("SELECT 1"),                 # the connection is closed (no SQLSTATE)
                        lambda: psycopg.connect(server.dsn, connect_timeout=5)):    # nobody listens
            with lesson.quiet_if_server_stopped():
                attempt()
                raise AssertionError("not reached: the server is stopped")


def test_a_running_servers_operational_error_is_not_swallowed(pg_dsn):
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("SET statement_timeout = 50")
        with pytest.raises(psycopg.errors.QueryCanceled), lesson.quiet_if_server_stopped():
            conn.execute("SELECT pg_sleep(5)")                          # an OperationalError; the server answers
        assert conn.execute("SELECT 1").fetchone() == (1,)
    with pytest.raises(psycopg.errors.UndefinedTable), lesson.quiet_if_server_stopped():
        psycopg.connect(pg_dsn).execute("SELECT * FROM no_such_table")


@pytest.mark.parametrize("err, gone", [
    (psycopg.OperationalError("the connection is closed"), True),         # raised by psycopg itself
    (errors.AdminShutdown("terminating connection"), True), (errors.CrashShutdown("x"), True),
    (errors.CannotConnectNow("the database system is shutting down"), True), (errors.ConnectionFailure("x"), True),
    (errors.QueryCanceled("statement timeout"), False), (errors.LockNotAvailable("x"), False),
    (errors.DiskFull("x"), False), (errors.TooManyConnections("x"), False), (ValueError("x"), False)])
def test_connection_gone_tells_a_stopped_server_from_other_errors(err, gone):
    assert connection_gone(err) is gone


def test_10_1_judges_the_prediction_whatever_state_the_server_is_in(tmp_path, capsys):
    """It used to mark the right prediction wrong once the server was stopped (after Run All)."""
    stopped = f"postgresql://postgres@/postgres?host={tmp_path}&port=5999"      # no server listens there
    said = passes(lesson.check_rls_prediction(s10.rls_prediction, stopped), capsys)
    note = [line for line in said.splitlines() if STOPPED.split(":")[0] in line]
    assert len(note) == 1 and not note[0].startswith(("✓", "✗")), said       # on a line of its own
    assert "run the cells from section 1 down to this one again" in said and str(tmp_path) not in said
    assert "you predicted 30" in fails(lesson.check_rls_prediction(30, stopped), capsys)


def test_10_1_takes_0_written_as_a_float(capsys):
    """0.0 was refused as "not code that computes it"."""
    passes(lesson.check_rls_prediction(0.0), capsys)
    assert "you predicted 1" in fails(lesson.check_rls_prediction(1.0), capsys)
    fails(lesson.check_rls_prediction(0.5), capsys)


@pytest.mark.parametrize("query, says, not_said", [
    ("SELECT id FRM items ORDER BY embedding <=> %(query)s LIMIT 5",
     'PostgreSQL could not run the query: syntax error at or near "items"', ["EXPLAIN", "^", "LINE", "select id"]),
    ("SELECT embedding FROM items ORDER BY embedding <=> %(query)s LIMIT 5", "select id", ["Vector", "["]),
    ("SELECT id FROM items ORDER BY embedding <-> %(query)s LIMIT 5", "<->, the Euclidean distance", ["DESC"]),
    ("SELECT id FROM items ORDER BY embedding <=> %(other)s LIMIT 5 -- %(query)s", "only %(query)s", ["KeyError", "missing"]),
    ("SELECT id FROM items ORDER BY embedding <=> %s LIMIT 5 -- %(query)s", "placeholder %s", ["Traceback"]),
])
def test_10_2_says_what_is_wrong_in_one_plain_sentence(pg_dsn, query, says, not_said, capsys):
    """A syntax error printed PostgreSQL's multi-line message after "EXPLAIN (COSTS OFF)" with a misaligned caret
    and a stray "; select id FROM items"; SELECT embedding dumped five vectors; <-> got the DESC hint."""
    said = fails(lesson.check_index_query(query, pg_dsn), capsys)
    assert says in said, said
    for text in not_said:
        assert text not in said, said


def test_checker_lines_fit_a_projected_cell(pg_dsn, tmp_path, capsys):
    """10.1's sentence was 203 characters on one line, 10.2's 265: they wrapped mid-word at 1280 px."""
    stopped = f"postgresql://postgres@/postgres?host={tmp_path}&port=5999"
    lesson.check_rls_prediction(0)
    lesson.check_rls_prediction(30, stopped)
    for query in ("SELECT id FROM items ORDER BY 1 - (embedding <=> %(query)s) DESC LIMIT 5",
                  "SELECT id FROM items ORDER BY embedding <-> %(query)s LIMIT 5",
                  "SELECT id FROM items ORDER BY embedding <=> %(query)s LIMIT 4",
                  "SELECT id FRM items ORDER BY embedding <=> %(query)s LIMIT 5"):
        lesson.check_index_query(query, pg_dsn)
    lesson.check_index_query(s10.NEAREST, stopped)
    for line in capsys.readouterr().out.splitlines():
        assert len(line) <= 100, line


def test_remove_user_lets_a_cell_feed_the_same_user_again(pg_dsn, user, scenario):
    from teachmem.lab.replay import feed
    feed(PgMemoryStore(pg_dsn, user_id=user), scenario).close()
    with pytest.raises(ValueError, match="turn must be greater than the previous turn"):
        feed(PgMemoryStore(pg_dsn, user_id=user), scenario)
    assert lesson.remove_user(pg_dsn, user) == 30
    with feed(PgMemoryStore(pg_dsn, user_id=user), scenario) as again:
        assert len(again) == 30


def test_table_leftovers_shows_a_dead_row_until_vacuum_full(pg_dsn, user):
    with PgMemoryStore(pg_dsn, user_id=user) as store, psycopg.connect(pg_dsn, autocommit=True) as owner:
        owner.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        owner.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
        word = f"zebra{user[:8]}"
        store.store(f"The {word} lives at the zoo", "fact", 0.5)
        assert lesson.table_leftovers(owner, "memories", word).startswith("rows that say it 1 |")
        store.delete("s0")
        after = lesson.table_leftovers(owner, "memories", word)
        assert after.startswith("rows that say it 0 |") and not after.endswith("in the page bytes 0"), after
        assert "dead row versions 0" not in after
        owner.execute("VACUUM FULL memories")
        assert lesson.table_leftovers(owner, "memories", word).endswith("| in the page bytes 0")


def test_10_1_with_a_running_server_checks_the_prediction(pg_dsn, capsys):
    passes(lesson.check_rls_prediction(s10.rls_prediction, pg_dsn), capsys)
    assert "you predicted 30" in fails(lesson.check_rls_prediction(30, pg_dsn), capsys)


def test_plan_shape_keeps_the_operations_and_the_conditions():
    lines = ["Limit", "  ->  Sort", "        Sort Key: (embedding <=> $query)", "        ->  Index Scan using i on t",
             "              Index Cond: (user_id = 'x')", "              Filter: (retired IS NULL)"]
    assert lesson.plan_shape(lines).splitlines() == [lines[0], lines[1], lines[3], lines[4], lines[5]]


def test_the_stub_in_the_notebook_is_the_wrong_answer_the_test_uses():
    source = "".join("".join(c["source"]) for c in json.loads(
        (ROOT / "notebooks" / "10_from_laptop_to_production.ipynb").read_text())["cells"])
    assert 'NEAREST = "SELECT id FROM items ORDER BY 1 - (embedding <=> %(query)s) DESC LIMIT 5"' in source
    assert "rls_prediction = ...   # a whole number" in source


@pytest.mark.parametrize("bad", [42, b"SELECT id FROM items"])
def test_a_query_that_is_not_sql_text_is_named(pg_dsn, bad, capsys):
    assert not lesson.check_index_query(bad, pg_dsn)
    assert "string of SQL" in capsys.readouterr().out


def test_10_compares_the_stores_under_the_same_ranking():
    """The notebook says the in-memory store returns what PostgreSQL returns "with the same ranking settings":
    the in-memory store it builds must rank as PgMemoryStore does (cosine only, relevance × importance × decay),
    not by its own default (half-life recency, BM25 blended in)."""
    notebook = json.loads((ROOT / "notebooks" / "10_from_laptop_to_production.ipynb").read_text())
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    compared = [c for c in cells if "SemanticMemoryStore(" in c and "PgMemoryStore(" in c]
    assert compared, "notebook 10 no longer compares the two stores"
    for cell in compared:
        call = cell[cell.index("SemanticMemoryStore("):].split("\n")[0]
        assert all(setting in call for setting in ('lexical_weight=0.0', 'reply_weight=0.0', 'scoring="product"')), call


def test_plan_shape_puts_a_long_condition_on_two_lines_that_fit():
    """Cell 19's Filter line was 102 characters; plan_nodes, which reads the operations, still gets it whole."""
    filtered = ("                Filter: ((retired IS NULL) AND (user_id = current_setting('app.user_id'::text, "
                "true)))")
    shown = lesson.plan_shape(["Limit", filtered]).splitlines()
    assert shown == ["Limit", "                Filter: ((retired IS NULL) AND",
                     "                         (user_id = current_setting('app.user_id'::text, true)))"]
    assert lesson.plan_shape(["Limit", filtered], None).splitlines() == ["Limit", filtered]


def test_the_stored_run_table_prints_the_files_it_reads(tmp_path):
    """Section 4 prints the committed bench_pg.py runs; every figure comes from the files, none is typed in."""
    run = json.loads(lesson.STORED_RUN.read_text(encoding="utf-8"))
    large = json.loads(lesson.STORED_LARGE.read_text(encoding="utf-8"))
    assert run["memories"] == 100_000 and run["settings"]["hnsw.iterative_scan"] == "relaxed_order"
    assert large["memories"] == 1_000_000 and large["vectors"] == "synthetic"
    run["floor_ms_p50_p95"] = [1.25, 2.5]
    exact = f"exact=True, candidates {run['settings']['candidates']}"
    run["postgres_top10"][exact] = {"p50_p95_ms": [99.0, 123.4], "recall_at_10": 1.0}
    run["insert_per_s"]["postgres store_many(), index live"] = 12345
    run["postgres_retrieve_top10_recording_recall_ms_p50_p95"] = [31.5, 77.7]
    large["postgres_top10"][exact] = {"p50_p95_ms": [918.5, 1355.5], "recall_at_10": 0.5}
    large["date"] = "2031-01-02T00:00:00Z"
    changed, changed_large = tmp_path / "run.json", tmp_path / "large.json"
    changed.write_text(json.dumps(run), encoding="utf-8")
    changed_large.write_text(json.dumps(large), encoding="utf-8")
    table = lesson.stored_run(changed, changed_large).splitlines()
    assert table[0].startswith(f"{run['date'][:10]}, 2031-01-02, ")
    assert table[3].startswith("one matrix product (the floor)      1.25     2.5")
    assert table[7] == ("  retrieve(): + recall written      31.5    77.7" + " " * 11
                        + "".join(f"{lesson._ms(x):>8}" for x in large["postgres_retrieve_top10_recording_recall_ms_p50_p95"]))
    assert table[8].startswith("PgMemoryStore, exact=True             99     123          1     918   1,360        0.5")
    assert table[9] == (f"writes a second at 100,000: store() {run['insert_per_s']['postgres store()']:,}, "
                        "store_many() 12,345 (index live, embedding included)")
    assert table[10].endswith("(index live)")
    assert lesson.stored_run() != "\n".join(table)