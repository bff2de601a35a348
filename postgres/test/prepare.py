#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes what compare.sql loads: the corpora's lines (as PostgreSQL text-
# format rows) and the uriscan command's own answers for every one of them.
# usage: prepare.py URISCAN OUTDIR CORPUS...
import json
import subprocess
import sys

BASE = "http://a/b/c/d;p?q"  # RFC 3986 sec. 5.4's base
PROFILES = ("syntax", "scheme", "crawler", "w3lib")
COLUMNS = ("line,authority,host_nowww,subdomain,extension,path_decoded,"
           "query_decoded,fragment_decoded,path_segments,param_names,"
           "surt_crawler,param_raw:q")


def escape(b):
    """Bytes as a field of COPY's text format."""
    return (b.replace(b"\\", b"\\\\").replace(b"\t", b"\\t")
            .replace(b"\n", b"\\n").replace(b"\r", b"\\r"))


def run(uriscan, args, path):
    out = subprocess.run([uriscan] + args + ["--quiet", path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if out.returncode not in (0, 1):
        sys.exit("prepare: uriscan %s failed (%d)" % (args, out.returncode))
    return out.stdout


def main():
    uriscan, outdir, corpora = sys.argv[1], sys.argv[2], sys.argv[3:]
    data = b""
    for c in corpora:
        with open(c, "rb") as f:
            text = f.read()
        data += text if text.endswith(b"\n") or not text else text + b"\n"
    # The command's lines: split on \n, a \r before it dropped. A line with
    # a NUL byte cannot be a text value: it is left out (none are today).
    lines = [l[:-1] if l.endswith(b"\r") else l for l in data.split(b"\n")[:-1]]
    source = outdir + "/all.txt"
    with open(source, "wb") as f:
        f.write(data)
    with open(outdir + "/lines.tsv", "wb") as all_rows, \
         open(outdir + "/lines_utf8.tsv", "wb") as utf8_rows:
        for n, l in enumerate(lines, 1):
            if b"\0" in l:
                continue
            row = b"%d\t%s\n" % (n, escape(l))
            all_rows.write(row)
            try:
                l.decode("utf-8")
                utf8_rows.write(row)
            except UnicodeDecodeError:
                pass
    # parse --format=tsv exactly as the command writes it (COPY ... HEADER).
    with open(outdir + "/parse.tsv", "wb") as f:
        f.write(run(uriscan, ["parse", "--format=tsv"], source))
    with open(outdir + "/derived.tsv", "wb") as f:
        f.write(run(uriscan, ["parse", "--format=tsv", "--columns=line,"
                              "registrable_domain,public_suffix,surt"], source))
    # The other columns a reference alone gives, one SQL function each.
    with open(outdir + "/columns.tsv", "wb") as f:
        f.write(run(uriscan, ["parse", "--format=tsv", "--columns=" + COLUMNS],
                    source))
    for p in PROFILES:
        with open("%s/keys_%s.tsv" % (outdir, p), "wb") as f:
            f.write(run(uriscan, ["parse", "--format=tsv", "--profile=" + p,
                                  "--columns=line,normalized,key"], source))
    with open(outdir + "/audit.tsv", "wb") as f:
        f.write(run(uriscan, ["audit"], source))
    # jsonl's "at" (the error offset) and resolve's output, with line numbers;
    # resolve echoes an invalid line, which is NULL in SQL.
    records = run(uriscan, ["parse", "--format=jsonl"], source).split(b"\n")
    resolved = run(uriscan, ["resolve", "--base=" + BASE], source).split(b"\n")
    with open(outdir + "/at.tsv", "wb") as at, \
         open(outdir + "/resolve.tsv", "wb") as res:
        for n, l in enumerate(lines, 1):
            record = json.loads(records[n - 1])
            if record["valid"]:
                res.write(b"%d\t%s\n" % (n, escape(resolved[n - 1])))
            else:
                if resolved[n - 1] != l:
                    sys.exit("prepare: resolve did not echo line %d" % n)
                at.write(b"%d\t%d\n" % (n, record["at"]))
                res.write(b"%d\t\\N\n" % n)
    # Most corpus lines are absolute, which resolve to themselves: so also
    # each valid line's path (leading '/' dropped) and query as a relative
    # reference, which merges with the base and meets its dot segments.
    refs = []
    with open(outdir + "/parse.tsv", "rb") as f:
        for row in f.read().split(b"\n")[1:-1]:
            cols = row.split(b"\t")
            if cols[1] != b"true":
                continue
            ref = cols[6].lstrip(b"/")
            if cols[7] != b"\\N":
                ref += b"?" + cols[7]
            refs.append((int(cols[0]), ref))
    with open(outdir + "/refs.txt", "wb") as f:
        f.write(b"".join(r + b"\n" for _, r in refs))
    targets = run(uriscan, ["resolve", "--base=" + BASE],
                  outdir + "/refs.txt").split(b"\n")
    records = run(uriscan, ["parse", "--format=jsonl"],
                  outdir + "/refs.txt").split(b"\n")
    with open(outdir + "/relative.tsv", "wb") as f:
        for k, (n, ref) in enumerate(refs):
            valid = json.loads(records[k])["valid"]
            f.write(b"%d\t%s\t%s\n" % (n, escape(ref),
                                        escape(targets[k]) if valid else b"\\N"))
    # The command's parameters, decoded (`params`): the lines compared are
    # those whose every name and value is text in both databases (no NUL,
    # and UTF-8 for the UTF8 one, where other bytes become U+FFFD).
    by_line = {}
    for row in run(uriscan, ["params"], source).split(b"\n")[:-1]:
        n, name, value = row.split(b"\t")
        by_line.setdefault(int(n), []).append((name, value))
    def clean(fields, utf8):
        for f in fields:
            raw = (f.replace(b"\\t", b"\t").replace(b"\\n", b"\n")
                   .replace(b"\\r", b"\r").replace(b"\\\\", b"\\"))
            if b"\0" in raw:
                return False
            if utf8:
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError:
                    return False
        return True
    for utf8, suffix in ((False, ""), (True, "_utf8")):
        with open(outdir + "/params%s.tsv" % suffix, "wb") as f, \
             open(outdir + "/params_lines%s.tsv" % suffix, "wb") as g:
            for n, l in enumerate(lines, 1):
                fields = by_line.get(n, [])
                if b"\0" in l or not clean([x for p in fields for x in p], utf8):
                    continue
                g.write(b"%d\n" % n)
                for k, (name, value) in enumerate(fields, 1):
                    f.write(b"%d\t%d\t%s\t%s\n" % (n, k, name, value))
    print("prepare: %d lines from %d corpora" % (len(lines), len(corpora)))


main()
