"""``forget`` on the production path: a PgMemoryStore erases a text everywhere it holds it (rows,
earlier texts, labels, vectors), for its user only, in one transaction; the audit stays "not clean"
until ``compact()`` has rewritten the old row versions out of the table's pages."""
import re

import psycopg
import pytest

from teachmem import PgMemoryStore, forget
from teachmem.lab.storage.pg_file import table_leftovers


def filled(dsn: str, user: str) -> PgMemoryStore:
    store = PgMemoryStore(dsn, user_id=user)
    store.store("My card is 4111 1111 1111 1111, charge it monthly", "fact", 0.9)
    store.store("We deploy on Fridays", "fact", 0.6, note="card 4111 1111 1111 1111 on file")
    [change] = store.store("The invoice goes to accounts", "fact", 0.5)
    store.update(change.id, "The invoice goes to accounts, paid with card 4111 1111 1111 1111")
    store.update(change.id, "The invoice goes to accounts")              # an earlier text holds it
    store.store("Tea, no sugar", "fact", 0.4)
    return store


def test_forget_empties_every_row_that_holds_the_text_and_nothing_else(pg_dsn, user):
    with filled(pg_dsn, user) as store, filled(pg_dsn, user + "-other") as other:
        audit = forget(store, "4111 1111 1111 1111")
        row = audit.tiers[0]
        assert (row.removed, row.remaining) == (3, 3)       # three rows emptied, their old versions left
        assert not audit.clean and "4111" not in repr(audit.changes)
        texts = [t for t, _ in store.history("The invoice goes to accounts")] + [
            h["text"] for h in store.explain("card", 10)]
        assert not any("4111" in t for t in texts) and len(store) == 1
        assert store.explain("tea", 1)[0]["text"] == "Tea, no sugar"
        assert other.copies_held(re.compile("4111")) == 3                  # another user: untouched
        with psycopg.connect(pg_dsn) as owner:
            vectors = owner.execute("SELECT count(*) FROM memories WHERE user_id = %s AND text = '' "
                                    "AND embedding IS NOT NULL", [user]).fetchone()[0]
        assert vectors == 0


def test_the_audit_is_clean_once_compact_has_rewritten_the_pages(pg_dsn, user):
    word = f"zebra{user[-8:].replace('-', '')}"
    with PgMemoryStore(pg_dsn, user_id=user) as store, psycopg.connect(pg_dsn, autocommit=True) as owner:
        for extension in ("pageinspect", "pgstattuple"):                # the owner reads raw pages
            owner.execute(f"CREATE EXTENSION IF NOT EXISTS {extension}")
        store.store(f"The {word} password is hunter2", "fact", 0.9)
        assert not forget(store, word).clean
        assert table_leftovers(owner, "memories", word).endswith(
            tuple(f"in the page bytes {n}" for n in range(1, 9)))    # the old version, in the bytes
        store.compact()
        assert forget(store, word).clean
        assert table_leftovers(owner, "memories", word).endswith("| in the page bytes 0")
        store.store("still works after compact", "fact", 0.5)
        assert len(store) == 1


def test_erase_is_all_or_nothing(pg_dsn, user, monkeypatch):
    with filled(pg_dsn, user) as store:
        pattern = re.compile("4111 1111 1111 1111")
        before = store.copies_held(pattern)
        original, emptied = store.conn.execute, []

        def failing(statement, *args, **kwargs):
            if "retired = 'deleted'" in str(statement):
                emptied.append(statement)
                if len(emptied) == 2:                     # the second row: stop half way
                    raise psycopg.errors.QueryCanceled("stopped half way")
            return original(statement, *args, **kwargs)

        monkeypatch.setattr(store.conn, "execute", failing)
        with pytest.raises(psycopg.errors.QueryCanceled):
            store.erase(pattern)
        monkeypatch.undo()
        assert store.copies_held(pattern) == before == 3 and store.old_versions == 0


def test_erase_and_copies_held_take_a_compiled_pattern(pg_dsn, user):
    with PgMemoryStore(pg_dsn, user_id=user) as store:
        with pytest.raises(TypeError, match="pattern"):
            store.erase("4111")
        with pytest.raises(TypeError, match="pattern"):
            store.copies_held("4111")
