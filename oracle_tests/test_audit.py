"""``bleu-compat audit TABLE`` (issue 33): a results table's every number identified.

Expected: the published numbers of WMT23 (``fixtures/real/wmt23-audit``, SOURCE.md) and of
WMT21/WMT22 (``../shared/real``, when present) are each reproduced; which configuration
reproduces a row is checked against sacreBLEU run here; bad input is one line naming the
row and the column, exit 2, and nothing written.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bleu_compat.cli import main

pytestmark = pytest.mark.xdist_group("test_audit")

sacrebleu = pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parent.parent
WMT23 = ROOT / "fixtures" / "real" / "wmt23-audit"
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"


def _lines(path: Path | str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def wmt23(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wmt23")
    for gz in WMT23.glob("*.gz"):
        (out / gz.name[:-3]).write_bytes(gzip.decompress(gz.read_bytes()))
    (out / "table.tsv").write_bytes((WMT23 / "table.tsv").read_bytes())
    return out


@pytest.fixture(scope="module")
def wmt23_json(wmt23: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, dict]:
    """One audit of the WMT23 table: exit status, text output, the --json report."""
    out = tmp_path_factory.mktemp("wmt23-out")
    report = out / "audit.json"
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "audit", str(wmt23 / "table.tsv"),
                           "--json", str(report), "--markdown", str(out / "audit.md"),
                           "--html", str(out / "audit.html")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    return proc.returncode, proc.stdout, json.loads(report.read_text(encoding="utf-8"))


def test_wmt23_ten_rows_are_reproduced(wmt23: Path, wmt23_json) -> None:
    """Done-when: ``10 of 10 reproduced`` (en-cs, en-zh, he-en's bleu-all over two
    references, en-ja), each row's first configuration the one sacreBLEU run here gives the
    published number with, every digit."""
    from sacrebleu.metrics import BLEU

    code, text, report = wmt23_json
    lines = text.splitlines()
    assert code == 0 and lines[-1] == "10 of 10 reproduced" and len(lines) == 11
    rows = list(csv.DictReader(open(wmt23 / "table.tsv", encoding="utf-8"), delimiter="\t"))
    assert report["reproduced"] == report["rows_total"] == 10 == len(report["rows"])
    tok = {"en-cs": "13a", "en-zh": "zh", "he-en": "13a", "en-ja": "char"}
    for row, got in zip(rows, report["rows"]):
        pair = row["label"].split()[0]
        refs = row["references"].split(";")
        first = got["matches"][0]
        assert got["reproduced"] and got["exact"], row["label"]
        assert first["implementation"] == "sacreBLEU" and f"tok:{tok[pair]}|" in first["signature"]
        used = [wmt23 / Path(p).name for p in first["references"]]
        own = BLEU(tokenize=tok[pair]).corpus_score(_lines(wmt23 / row["hypothesis"]),
                                                    [_lines(p) for p in used]).score
        assert repr(own) == row["score"] == repr(first["number"]), row["label"]
        if pair == "he-en" and len(refs) == 2:  # bleu-all is refA's number
            assert first["references"] == [refs[0]] and not first["all_references"]


def test_wmt23_reports_are_whole(wmt23_json, tmp_path_factory) -> None:
    code, text, report = wmt23_json
    out = next(p for p in Path(tmp_path_factory.getbasetemp()).glob("wmt23-out*"))
    md = (out / "audit.md").read_text(encoding="utf-8")
    page = (out / "audit.html").read_text(encoding="utf-8")
    assert md.rstrip().splitlines()[-1] == "10 of 10 reproduced" and md.count("\n| ") == 11
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<tr>") == 11 and "10 of 10 reproduced" in page
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


def test_en_ja_is_searched_with_its_segmenter_when_it_runs(wmt23: Path) -> None:
    """tok=ja-mecab (issue 32) plugs into identify: listed as not searched with the reason
    while it cannot run here, searched where it runs and the files hold Japanese."""
    from bleu_compat import tokenizers
    from bleu_compat.identify import search

    names = getattr(tokenizers, "ALL_TOKENIZERS", tokenizers.TOKENIZERS)
    if "ja-mecab" not in names:
        pytest.skip("tok=ja-mecab has not landed (issue 32)")
    s = search(str(wmt23 / "generaltest2023.en-ja.hyp.NLLB_MBR_BLEU.ja"),
               [str(wmt23 / "generaltest2023.en-ja.ref.refA.ja")])
    note = [n for n in s.not_searched if n.startswith("tok=ja-mecab")]
    searched = any(m.config.tokenize == "ja-mecab" for m in s.values)
    assert searched != bool(note), (note, searched)


@pytest.fixture(scope="module")
def wmt2122(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    """An audit table of every WMT21 and WMT22 BLEU row of automatic-scores.tsv whose files
    are in ../shared/real (a bleu-X row: ref.X; bleu-all: every ref.* of the pair)."""
    real = shared_dir / "real"
    table = tmp_path_factory.mktemp("wmt2122") / "table.tsv"
    with open(table, "w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, delimiter="\t")
        out.writerow(["label", "score", "hypothesis", "references"])
        for year in ("wmt21", "wmt22"):
            scores = real / year / "automatic-scores.tsv"
            if not scores.is_file():
                continue
            for row in csv.DictReader(open(scores, encoding="utf-8"), delimiter="\t"):
                if not row["metric"].startswith("bleu-"):
                    continue
                folder = real / year / row["pair"]
                hyp = folder / f"sys.{row['system']}.txt"
                which = row["metric"][len("bleu-"):]
                refs = (sorted(folder.glob("ref.*.txt")) if which == "all"
                        else [folder / f"ref.{which}.txt"])
                if not hyp.is_file() or not refs or not all(p.is_file() for p in refs):
                    continue
                out.writerow([f"{year} {row['pair']} {row['system']} {row['metric']}",
                              row["score"], str(hyp), ";".join(map(str, refs))])
    return table


def test_wmt21_wmt22_rows_are_reproduced(wmt2122: Path, capsys) -> None:
    """Every WMT21/22 BLEU row whose files are here is reproduced (the published doubles are
    sacreBLEU 2.x's own: 13a, zh for Chinese targets)."""
    rows = list(csv.DictReader(open(wmt2122, encoding="utf-8"), delimiter="\t"))
    if not rows:
        pytest.skip("no WMT21/22 files in ../shared/real")
    code = main(["audit", str(wmt2122), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    missed = [r["label"] for r in report["rows"] if not r["reproduced"]]
    assert code == 0 and not missed and report["reproduced"] == len(rows) >= 30
    for r in report["rows"]:
        first = r["matches"][0]
        assert first["implementation"] == "sacreBLEU" and first["number"] == float(r["score"])
        assert ("tok:zh|" in first["signature"]) == ("-zh " in r["label"])


# ----------------------------------------------------------------------------- bad input


def _tiny(tmp_path: Path) -> tuple[Path, Path]:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\nhello world\n", encoding="utf-8")
    hyp.write_text("the cat is on the mat\nhello there world\n", encoding="utf-8")
    return ref, hyp


def _table(tmp_path: Path, rows: list[list[str]], header: str = "score\thypothesis\treferences",
           name: str = "t.tsv") -> Path:
    path = tmp_path / name
    path.write_text(header + "\n" + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("header, row, says", [
    ("score\thypothesis", ["23.4", "hyp.txt"], "lacks the column references"),
    ("label\tscore\treferences", ["x", "23.4", "ref.txt"], "lacks the column hypothesis"),
    ("score\thypothesis\treferences", ["23.4", "absent.txt", "ref.txt"], "column hypothesis: "),
    ("score\thypothesis\treferences", ["23.4", "hyp.txt", "ref.txt;absent.txt"], "column references: "),
    ("score\thypothesis\treferences", ["abc", "hyp.txt", "ref.txt"], "column score: 'abc' is not a number"),
    ("score\thypothesis\treferences", ["123.4", "hyp.txt", "ref.txt"], "column score: 123.4: a BLEU"),
    ("score\thypothesis\treferences\tscale", ["23.4", "hyp.txt", "ref.txt", "0-1"],
     "column score: 23.4: above 1"),
    ("score\thypothesis\treferences\tscale", ["23.4", "hyp.txt", "ref.txt", "1-5"],
     "column scale: '1-5' is not"),
    ("score\thypothesis\treferences", ["23.4", "hyp.txt", "one.txt"], "column references: line counts differ"),
    ("score\thypothesis\treferences", ["23.4", "hyp.txt", ""], "column references: no reference"),
    ("score\thypothesis\treferences", ["23.4", "bad.txt", "ref.txt"], "column hypothesis: "),
    ("score\thypothesis\treferences", ["23.4", "folder", "ref.txt"], "is a directory"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, capsys, header: str,
                                                          row: list[str], says: str) -> None:
    """Checked before anything is computed: one line naming the row and the column, exit 2,
    nothing on standard output, no report file (not even a temporary one)."""
    _tiny(tmp_path)
    (tmp_path / "one.txt").write_text("one line\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9\nok\n")
    (tmp_path / "folder").mkdir()
    good = ["23.4", "hyp.txt", "ref.txt"] + (["0-100"] if header.endswith("scale") else [])
    rows = [good, row] if len(good) == len(row) else [row]
    table = _table(tmp_path, rows, header)
    report = tmp_path / "report.json"
    code = main(["audit", str(table), "--json", str(report), "--html", str(tmp_path / "r.html")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", captured.out
    assert says in captured.err and captured.err.count("\n") == 1, captured.err
    if says.startswith("column"):
        n = len(rows)
        assert f"row {n} (line {n + 1}), column" in captured.err, captured.err
    assert "Traceback" not in captured.err
    assert not report.exists() and not (tmp_path / "r.html").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_an_empty_or_headerless_table_is_refused(tmp_path: Path, capsys) -> None:
    for name, text, says in (("t.tsv", "", "no header"),
                             ("t.tsv", "score\thypothesis\treferences\n", "no rows"),
                             ("t.csv", "score,hypothesis,references\n", "no rows"),
                             ("t.tsv", "score,hypothesis,references\n", "read as tab-separated")):
        (tmp_path / name).write_text(text, encoding="utf-8")
        code = main(["audit", str(tmp_path / name)])
        err = capsys.readouterr().err
        assert code == 2 and says in err and err.count("\n") == 1


def test_csv_with_quoted_paths_and_relative_references(tmp_path: Path, capsys) -> None:
    """A CSV (commas; a quoted cell holding a comma), paths relative to the table's folder,
    references separated by ';' (a path with a space), a row that is not reproduced: exit 1."""
    from sacrebleu.metrics import BLEU

    sub = tmp_path / "data dir"
    sub.mkdir()
    ref, hyp = _tiny(sub)
    score = BLEU().corpus_score(_lines(hyp), [_lines(ref)]).score
    (tmp_path / "t.csv").write_text(
        "Label,Score,Hypothesis,References\n"
        f'"a, b",{score:.2f},data dir/hyp.txt,data dir/ref.txt;data dir/ref.txt\n'
        "c,99.99,data dir/hyp.txt,data dir/ref.txt;\n", encoding="utf-8")  # ";": one path
    code = main(["audit", str(tmp_path / "t.csv")])
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and out[-1] == "1 of 2 reproduced"
    assert out[0].startswith(f"row 1 (a, b) {score:.2f}: sacrebleu ")
    assert out[1].startswith("row 2 (c) 99.99: none; closest: ")


def test_a_long_table_is_streamed_in_bounded_memory(tmp_path: Path) -> None:
    """10,000 rows on the same files: the peak memory is about that of 1,000 rows (each row's
    result is written as it comes, the search shared), and the JSON is whole."""
    ref, hyp = _tiny(tmp_path)

    def run(n: int) -> tuple[int, int]:
        table = _table(tmp_path, [[f"{(k % 1000) / 10:.1f}", "hyp.txt", "ref.txt"] for k in range(n)],
                       name=f"t{n}.tsv")
        code = ("import resource, sys; from bleu_compat.cli import main; "
                f"c = main(['audit', {str(table)!r}, '--format', 'json', '--json', "
                f"{str(tmp_path / f'r{n}.json')!r}]); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, c, file=sys.stderr)")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=600, cwd=ROOT)
        rss, status = proc.stderr.split()[-2:]
        report = json.loads((tmp_path / f"r{n}.json").read_text(encoding="utf-8"))
        assert report["rows_total"] == len(report["rows"]) == n
        return int(rss), int(status)

    small, _ = run(1000)
    large, status = run(10_000)
    assert status == 1
    assert large - small < 40 * 1024, (small, large)  # KiB: rows are not held


def test_rows_come_out_before_the_table_is_read_to_its_end(tmp_path: Path) -> None:
    """audit() yields each row's result as it is computed: a row that no longer reads at the
    end raises only after the rows before it came out."""
    from bleu_compat.audit import TableError, audit

    _tiny(tmp_path)
    table = _table(tmp_path, [["23.4", "hyp.txt", "ref.txt"]] * 3 + [["23.4", "hyp.txt", ""]])
    seen = []
    with pytest.raises(TableError, match="row 4"):
        for r in audit(str(table)):
            seen.append(r["row"])
    assert seen == [1, 2, 3]


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal, a progress bar goes to standard error; never to standard output."""
    import pty

    _tiny(tmp_path)
    table = _table(tmp_path, [["23.4", "hyp.txt", "ref.txt"]])
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "bleu_compat", "audit", str(table)],
                            stdout=subprocess.PIPE, stderr=slave, cwd=ROOT,
                            env=dict(os.environ, COLUMNS="100", TERM="xterm"))
    os.close(slave)
    out, _ = proc.communicate(timeout=300)
    err = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert proc.returncode in (0, 1)
    assert b"audit" in err and b"rows" in err
    assert out.decode().splitlines()[-1].endswith("reproduced") and b"\x1b" not in out


def test_cluster_gives_the_same_output(tmp_path: Path, capsys) -> None:
    """--cluster local:2: rows sharing a hypothesis run together; the report is the local one
    (rows of two systems, one with two references, one row reproduced and one not)."""
    pytest.importorskip("distributed")
    from sacrebleu.metrics import BLEU

    ref, hyp = _tiny(tmp_path)
    ref2, hyp2 = tmp_path / "ref2.txt", tmp_path / "hyp2.txt"
    ref2.write_text("the cat sat on a mat\nhello big world\n", encoding="utf-8")
    hyp2.write_text("a cat sat on the mat\nhello world\n", encoding="utf-8")
    s1 = BLEU().corpus_score(_lines(hyp), [_lines(ref), _lines(ref2)]).score
    s2 = BLEU().corpus_score(_lines(hyp2), [_lines(ref)]).score
    table = _table(tmp_path, [[repr(s1), "hyp.txt", "ref.txt;ref2.txt"], [repr(s2), "hyp2.txt", "ref.txt"],
                              ["99.99", "hyp.txt", "ref.txt"], [f"{s2:.2f}", "hyp2.txt", "ref.txt ref2.txt"]])
    outs = []
    for extra in ([], ["--cluster", "local:2"]):
        code = main(["audit", str(table), "--format", "json", *extra])
        outs.append((code, capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0][0] == 1
    report = json.loads(outs[0][1])
    assert [r["reproduced"] for r in report["rows"]][:3] == [True, True, False]


def test_a_pair_column_searches_the_moses_tokenizations(tmp_path: Path, capsys) -> None:
    """A ``pair`` cell (SRC-TRG) is identify's -l: the Moses tokenizations of its target are
    searched (the row's notes say nothing is missing for them); a bad pair is refused."""
    _tiny(tmp_path)
    table = _table(tmp_path, [["en-de", "23.4", "hyp.txt", "ref.txt"]],
                   header="pair\tscore\thypothesis\treferences")
    code = main(["audit", str(table), "--format", "json"])
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert code in (0, 1) and not any("moses" in n for n in row["not_searched"])
    plain = _table(tmp_path, [["23.4", "hyp.txt", "ref.txt"]], name="p.tsv")
    main(["audit", str(plain), "--format", "json"])
    assert any("moses" in n for n in json.loads(capsys.readouterr().out)["rows"][0]["not_searched"])
    bad = _table(tmp_path, [["ende", "23.4", "hyp.txt", "ref.txt"]],
                 header="pair\tscore\thypothesis\treferences", name="b.tsv")
    assert main(["audit", str(bad)]) == 2
    assert "row 1 (line 2), column pair" in capsys.readouterr().err
