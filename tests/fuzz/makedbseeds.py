#!/usr/bin/env python3
"""Seeds for fuzz_dbrows' journal modes, made from real databases (issue 40): each database
copied, then its last rows of TASK and PYTORCH_API moved into a -wal that is never checkpointed
(first byte 0x03), or caught in the middle of a transaction with a hot -journal (0x05). A seed
is: that byte, the main file's length (4 bytes, big-endian), the main file, the log.
Usage: makedbseeds.py OUTDIR DB..."""
import os
import shutil
import sqlite3
import struct
import sys
import tempfile

TABLES = ("TASK", "PYTORCH_API")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write_seed(path, mode, main, log):
    with open(path, "wb") as f:
        f.write(bytes([mode]) + struct.pack(">I", len(main)) + main + log)


def wal_seed(db):
    con = sqlite3.connect(db, isolation_level=None)
    for t in TABLES:
        con.execute(f"CREATE TEMP TABLE keep_{t} AS SELECT rowid AS rs_rowid, * FROM main.{t} "
                    f"WHERE rowid > (SELECT max(rowid) - 64 FROM main.{t})")
        con.execute(f"DELETE FROM main.{t} WHERE rowid IN (SELECT rs_rowid FROM keep_{t})")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    for t in TABLES:
        cols = ", ".join(r[1] for r in con.execute(f"PRAGMA table_info({t})"))
        con.execute(f"INSERT INTO main.{t} (rowid, {cols}) SELECT rs_rowid, {cols} "
                    f"FROM keep_{t} ORDER BY rs_rowid")
    # Read while the connection is open: closing it would checkpoint the log.
    seed = read(db), read(db + "-wal")
    con.close()
    return seed


def journal_seed(db):
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA cache_size=10")  # the changes spill into the file
    con.execute("BEGIN")
    for t in TABLES:
        con.execute(f"DELETE FROM {t}")
    seed = read(db), read(db + "-journal")
    con.execute("ROLLBACK")
    con.close()
    return seed


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for i, src in enumerate(sys.argv[2:]):
        for mode, make, tag in ((0x03, wal_seed, "wal"), (0x05, journal_seed, "journal")):
            with tempfile.TemporaryDirectory() as work:
                db = os.path.join(work, "seed.db")
                shutil.copyfile(src, db)
                try:
                    main_bytes, log = make(db)
                except sqlite3.Error as e:
                    print(f"makedbseeds: {src}: {e}", file=sys.stderr)
                    continue
                write_seed(os.path.join(out, f"public{i}-{tag}"), mode, main_bytes, log)


if __name__ == "__main__":
    main()
