#!/usr/bin/env python3
"""Row accounting for `urna import` (a trial tool, not part of urna).

Every data row of every input file must be either stored (found in the database by its keys through
`urna export --format csv`, every field equal to the source after the normalisation the README documents:
trimmed, runs of blanks and non-breaking spaces as one, null markers as null, dates and amounts as values) or
named in the rejects file (a reject for its line, or a warning for the field that differs).

usage: row-accounting.py URNA WORKDIR FILE... [-- IMPORT-OPTIONS...]
All FILEs are imported in one run into WORKDIR/db.sqlite (created afresh, with --keep-personal-data); the
report is JSON on stdout: per file its kind, counts (rows, stored, rejected, UNACCOUNTED...), the fields that
differ (prefixed "warned " when the rejects file has a warning for that line and column, "(dup) " when the key
occurs twice, "(filled) " when the source has no value and another file gave one, "(case) " when the two differ
only in case or accents), and the source columns the export does not carry.

Written from the file layouts in the shared TSE notes (LAYOUTS.md), not from urna's code, so that it checks
urna rather than repeating it. Keys: a candidacy is year + round + DS_ELEICAO (folded) + SG_UE + SQ_CANDIDATO;
a good its candidacy's year, DS_ELEICAO and SQ_CANDIDATO plus NR_ORDEM_CANDIDATO (12-column originals: its
position among the candidacy's rows in the file); a legend row its year, SG_UE, SQ_COLIGACAO and NR_PARTIDO.
"""
import csv, io, json, os, re, subprocess, sys, unicodedata, zipfile
from collections import Counter, defaultdict

csv.field_size_limit(1 << 30)

ORIG_HEAD = "DATA_GERACAO;HORA_GERACAO;ANO_ELEICAO;NUM_TURNO;DESCRICAO_ELEICAO;SIGLA_UF;SIGLA_UE;DESCRICAO_UE;CODIGO_CARGO;DESCRICAO_CARGO;NOME_CANDIDATO;SEQUENCIAL_CANDIDATO;NUMERO_CANDIDATO;CPF_CANDIDATO;NOME_URNA_CANDIDATO;COD_SITUACAO_CANDIDATURA;DES_SITUACAO_CANDIDATURA;NUMERO_PARTIDO;SIGLA_PARTIDO;NOME_PARTIDO;CODIGO_LEGENDA;SIGLA_LEGENDA;COMPOSICAO_LEGENDA;NOME_LEGENDA;CODIGO_OCUPACAO;DESCRICAO_OCUPACAO;DATA_NASCIMENTO;NUM_TITULO_ELEITORAL_CANDIDATO;IDADE_DATA_ELEICAO;CODIGO_SEXO;DESCRICAO_SEXO;COD_GRAU_INSTRUCAO;DESCRICAO_GRAU_INSTRUCAO;CODIGO_ESTADO_CIVIL;DESCRICAO_ESTADO_CIVIL"
ORIG_TAIL = "CODIGO_NACIONALIDADE;DESCRICAO_NACIONALIDADE;SIGLA_UF_NASCIMENTO;CODIGO_MUNICIPIO_NASCIMENTO;NOME_MUNICIPIO_NASCIMENTO;DESPESA_MAX_CAMPANHA;COD_SIT_TOT_TURNO;DESC_SIT_TOT_TURNO"
HEADERLESS = {
    46: ("cand", (ORIG_HEAD + ";CODIGO_COR_RACA;DESCRICAO_COR_RACA;" + ORIG_TAIL + ";NM_EMAIL").split(";")),
    44: ("cand", (ORIG_HEAD + ";" + ORIG_TAIL + ";NM_EMAIL").split(";")),
    43: ("cand", (ORIG_HEAD + ";" + ORIG_TAIL).split(";")),
    12: ("bem", "DATA_GERACAO;HORA_GERACAO;ANO_ELEICAO;DESCRICAO_ELEICAO;SIGLA_UF;SQ_CANDIDATO;CD_TIPO_BEM_CANDIDATO;DS_TIPO_BEM_CANDIDATO;DETALHE_BEM;VALOR_BEM;DATA_ULTIMA_ATUALIZACAO;HORA_ULTIMA_ATUALIZACAO".split(";")),
    18: ("leg", "DATA_GERACAO;HORA_GERACAO;ANO_ELEICAO;NUM_TURNO;DESCRICAO_ELEICAO;SIGLA_UF;SIGLA_UE;NOME_UE;CODIGO_CARGO;DESCRICAO_CARGO;TIPO_LEGENDA;NUM_PARTIDO;SIGLA_PARTIDO;NOME_PARTIDO;SIGLA_COLIGACAO;NOME_COLIGACAO;COMPOSICAO_COLIGACAO;SEQUENCIAL_COLIGACAO".split(";")),
}
RENAME = {
    "DATA_GERACAO": "DT_GERACAO", "HORA_GERACAO": "HH_GERACAO", "NUM_TURNO": "NR_TURNO",
    "DESCRICAO_ELEICAO": "DS_ELEICAO", "SIGLA_UF": "SG_UF", "SIGLA_UE": "SG_UE", "DESCRICAO_UE": "NM_UE",
    "NOME_UE": "NM_UE", "CODIGO_CARGO": "CD_CARGO", "DESCRICAO_CARGO": "DS_CARGO", "NOME_CANDIDATO": "NM_CANDIDATO",
    "SEQUENCIAL_CANDIDATO": "SQ_CANDIDATO", "NUMERO_CANDIDATO": "NR_CANDIDATO", "CPF_CANDIDATO": "NR_CPF_CANDIDATO",
    "NOME_URNA_CANDIDATO": "NM_URNA_CANDIDATO", "COD_SITUACAO_CANDIDATURA": "CD_SITUACAO_CANDIDATURA",
    "DES_SITUACAO_CANDIDATURA": "DS_SITUACAO_CANDIDATURA", "NUMERO_PARTIDO": "NR_PARTIDO", "NUM_PARTIDO": "NR_PARTIDO",
    "SIGLA_PARTIDO": "SG_PARTIDO", "NOME_PARTIDO": "NM_PARTIDO", "CODIGO_LEGENDA": "SQ_COLIGACAO",
    "SEQUENCIAL_COLIGACAO": "SQ_COLIGACAO", "SIGLA_LEGENDA": "SG_COLIGACAO", "SIGLA_COLIGACAO": "SG_COLIGACAO",
    "COMPOSICAO_LEGENDA": "DS_COMPOSICAO_COLIGACAO", "COMPOSICAO_COLIGACAO": "DS_COMPOSICAO_COLIGACAO",
    "NOME_LEGENDA": "NM_COLIGACAO", "NOME_COLIGACAO": "NM_COLIGACAO", "TIPO_LEGENDA": "TP_AGREMIACAO",
    "CODIGO_OCUPACAO": "CD_OCUPACAO", "DESCRICAO_OCUPACAO": "DS_OCUPACAO", "DATA_NASCIMENTO": "DT_NASCIMENTO",
    "NUM_TITULO_ELEITORAL_CANDIDATO": "NR_TITULO_ELEITORAL_CANDIDATO", "IDADE_DATA_ELEICAO": "NR_IDADE_DATA_ELEICAO",
    "CODIGO_SEXO": "CD_GENERO", "DESCRICAO_SEXO": "DS_GENERO", "COD_GRAU_INSTRUCAO": "CD_GRAU_INSTRUCAO",
    "DESCRICAO_GRAU_INSTRUCAO": "DS_GRAU_INSTRUCAO", "CODIGO_ESTADO_CIVIL": "CD_ESTADO_CIVIL",
    "DESCRICAO_ESTADO_CIVIL": "DS_ESTADO_CIVIL", "CODIGO_COR_RACA": "CD_COR_RACA", "DESCRICAO_COR_RACA": "DS_COR_RACA",
    "CODIGO_NACIONALIDADE": "CD_NACIONALIDADE", "DESCRICAO_NACIONALIDADE": "DS_NACIONALIDADE",
    "SIGLA_UF_NASCIMENTO": "SG_UF_NASCIMENTO", "CODIGO_MUNICIPIO_NASCIMENTO": "CD_MUNICIPIO_NASCIMENTO",
    "NOME_MUNICIPIO_NASCIMENTO": "NM_MUNICIPIO_NASCIMENTO", "DESPESA_MAX_CAMPANHA": "VR_DESPESA_MAX_CAMPANHA",
    "COD_SIT_TOT_TURNO": "CD_SIT_TOT_TURNO", "DESC_SIT_TOT_TURNO": "DS_SIT_TOT_TURNO", "DETALHE_BEM": "DS_BEM_CANDIDATO",
    "VALOR_BEM": "VR_BEM_CANDIDATO", "DATA_ULTIMA_ATUALIZACAO": "DT_ULTIMA_ATUALIZACAO",
    "HORA_ULTIMA_ATUALIZACAO": "HH_ULTIMA_ATUALIZACAO", "NR_DESPESA_MAX_CAMPANHA": "VR_DESPESA_MAX_CAMPANHA",
    "NM_EMAIL": "DS_EMAIL", "NR_ORDEM_BEM_CANDIDATO": "NR_ORDEM_CANDIDATO",
    "DT_ULT_ATUAL_BEM_CANDIDATO": "DT_ULTIMA_ATUALIZACAO", "HH_ULT_ATUAL_BEM_CANDIDATO": "HH_ULTIMA_ATUALIZACAO",
}
NULLS = {"#NULO#", "#NULO", "#NE#", "#NE", "", "NÃO DIVULGÁVEL", "Não divulgável"}
MONTHS = {m: i + 1 for i, m in enumerate("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split())}


def fold(s):
    s = unicodedata.normalize("NFD", s)
    return " ".join("".join(c for c in s if not unicodedata.combining(c)).upper().split())


def clean(v):
    return " ".join(v.replace("\xa0", " ").split())


def norm(col, v):
    """The value as the README says it comes back: trimmed, runs of blanks as one, null markers as None,
    dates as tuples, money as cents."""
    if v is None:
        return None
    v = clean(v)
    if v in NULLS:
        return None
    numeric = col[:3] in ("CD_", "NR_", "SQ_", "VR_")
    if numeric and v in ("-1", "-3", "-4"):
        return None
    if col.startswith("DT_") and col != "DT_GERACAO" or col in ("DT_GERACAO",):
        return date(v)
    if col == "VR_BEM_CANDIDATO":
        return money(v.replace(".", "").replace(",", ".") if "," in v else v)
    if col == "VR_DESPESA_MAX_CAMPANHA":
        return money(v)
    return v


def money(v):
    m = re.fullmatch(r"(-?)(\d*)(?:\.(\d{1,2}))?", v)
    if not m or not (m.group(2) or m.group(3)):
        return ("bad", v)
    cents = int(m.group(2) or "0") * 100 + int((m.group(3) or "0").ljust(2, "0"))
    return -cents if m.group(1) else cents


def date(v):
    m = re.fullmatch(r"(\d{2})/(\d{2})/(\d{4})(?: (\d{2}):(\d{2}):(\d{2}))?", v)
    if m:
        t = tuple(int(x) for x in m.groups() if x is not None)
        return t[:3] if t[3:] == (0, 0, 0) else t
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?", v)
    if m:
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        t = (d, mo, y) + tuple(int(x) for x in m.groups()[3:] if x is not None)
        return t[:3] if t[3:] == (0, 0, 0) else t
    m = re.fullmatch(r"(\d{2})(\d{2})(\d{4})", v)
    if m:
        return (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = re.fullmatch(r"(\d{1,2})-([A-Z]{3})-(\d{2})", v.upper())
    if m and m.group(2) in MONTHS:
        return ("oracle", int(m.group(1)), MONTHS[m.group(2)], int(m.group(3)))
    return ("bad", v)


def decode(b):
    if b.startswith(b"\xef\xbb\xbf"):
        return b[3:].decode("utf-8")
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def rows_of(text):
    """(first line, fields) per record, physical line numbers 1-based; blank lines skipped."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=";")
    prev = 0
    for fields in reader:
        start = prev + 1
        prev = reader.line_num
        if fields == [] or fields == [""]:
            continue
        yield start, fields


def layout(first):
    names = [f.strip().upper() for f in first]
    if "SQ_CANDIDATO" in names or "SQ_COLIGACAO" in names or "CD_TIPO_BEM_CANDIDATO" in names:
        canon = [RENAME.get(n, n) for n in names]
        if "CD_TIPO_BEM_CANDIDATO" in canon:
            kind = "bem"
        elif "NM_CANDIDATO" in canon:
            kind = "cand"
        else:
            kind = "leg"
        return kind, canon, True
    if len(first) in HEADERLESS:
        kind, cols = HEADERLESS[len(first)]
        return kind, [RENAME.get(n, n) for n in cols], False
    return None, None, None


def read_source(path):
    """[(member name, kind, canonical columns, [(line, dict)])] for a file or each zip member."""
    out = []
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.filename.lower().endswith((".csv", ".txt")):
                    out += parse(info.filename, z.read(info))
        return out
    with open(path, "rb") as fh:
        return parse(os.path.basename(path), fh.read())


def parse(name, data):
    text = decode(data)
    records = list(rows_of(text))
    if not records:
        return [(name, None, None, [])]
    kind, cols, header = layout(records[0][1])
    if kind is None:
        return [(name, None, None, [])]
    body = records[1:] if header else records
    rows = []
    for line, fields in body:
        rows.append((line, dict(zip(cols, fields)) if len(fields) == len(cols) else None))
    return [(name, kind, cols, rows)]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def export(urna, db, typ, out):
    rc, so, se = run([urna, "export", "--db", db, "--format", "csv", "--type", typ, "--encoding", "utf8", "--out", out, "--quiet"])
    if rc != 0:
        raise SystemExit(f"export {typ} failed ({rc}): {se}")
    with open(out, encoding="utf-8-sig", newline="") as fh:
        r = csv.reader(fh, delimiter=";")
        head = next(r, None)
        return [dict(zip(head, row)) for row in r] if head else []


def cand_key(r):
    return (clean(r.get("ANO_ELEICAO", "")), clean(r.get("NR_TURNO", "") or "1"), fold(r.get("DS_ELEICAO", "")),
            clean(r.get("SG_UE", "")), clean(r.get("SQ_CANDIDATO", "")))


def bem_key(r):
    return (clean(r.get("ANO_ELEICAO", "")), fold(r.get("DS_ELEICAO", "")), clean(r.get("SQ_CANDIDATO", "")),
            clean(r.get("NR_ORDEM_CANDIDATO", "")))


def leg_key(r):
    return (clean(r.get("ANO_ELEICAO", "")), clean(r.get("SG_UE", "")), clean(r.get("SQ_COLIGACAO", "")),
            clean(r.get("NR_PARTIDO", "")))


# Columns a file has that a row's export cannot carry by design (README): legend rows' election/office columns.
LEGEND_UNSTORED = {"NR_TURNO", "DS_ELEICAO", "CD_CARGO", "DS_CARGO", "NM_UE", "SG_UF", "CD_ELEICAO", "CD_TIPO_ELEICAO",
                   "NM_TIPO_ELEICAO", "DT_ELEICAO", "SG_COLIGACAO", "DT_GERACAO", "HH_GERACAO", "CD_SITUACAO_LEGENDA",
                   "DS_SITUACAO", "NR_FEDERACAO", "NM_FEDERACAO", "SG_FEDERACAO", "DS_COMPOSICAO_FEDERACAO",
                   "NM_TIPO_DESTINACAO_VOTOS"}


def main():
    urna, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    extra = []
    if "--" in files:
        i = files.index("--")
        files, extra = files[:i], files[i + 1:]
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, "db.sqlite")
    rej = os.path.join(work, "rejects.csv")
    for p in (db, db + "-wal", db + "-shm", rej):
        if os.path.exists(p):
            os.remove(p)
    rc, so, se = run([urna, "import", "--db", db, "--rejects", rej, "--keep-personal-data", "--json", *extra, *files])
    summary = json.loads(so) if so.strip().startswith("{") else {"raw": so}
    report = {"import_exit": rc, "stderr": se.strip()[-2000:], "summary": summary, "files": {}}
    if rc != 0:
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return
    rejects = defaultdict(list)
    if os.path.exists(rej):
        with open(rej, encoding="utf-8", errors="replace", newline="") as fh:
            for r in csv.DictReader(fh):
                rejects[(os.path.basename(r["file"].split("!")[-1].split(":")[-1]), int(r["line"] or 0))].append(r)
    exported = {
        "cand": export(urna, db, "Candidate", os.path.join(work, "cand.csv")),
        "bem": export(urna, db, "Good", os.path.join(work, "bem.csv")),
        "leg": export(urna, db, "Coalition", os.path.join(work, "leg.csv")),
    }
    index = {"cand": defaultdict(list), "bem": defaultdict(list), "leg": defaultdict(list)}
    for r in exported["cand"]:
        index["cand"][cand_key(r)].append(r)
    for r in exported["bem"]:
        index["bem"][bem_key(r)].append(r)
    for r in exported["leg"]:
        index["leg"][leg_key(r)].append(r)
    ecols = {k: set(v[0].keys()) if v else set() for k, v in exported.items()}
    for path in files:
        for name, kind, cols, rows in read_source(path):
            st = Counter()
            diffs = Counter()
            examples = {}
            not_exported = set()
            seen = Counter()
            order = Counter()
            for line, r in rows:
                st["rows"] += 1
                rj = rejects.get((os.path.basename(name), line), [])
                hard = [x for x in rj if not x["reason"].startswith("warning")]
                warned_cols = {x["column"] for x in rj if x["reason"].startswith("warning")}
                if hard:
                    st["rejected"] += 1
                    continue
                if r is None:
                    st["UNACCOUNTED(bad field count)"] += 1
                    continue
                if kind == "cand":
                    key = cand_key(r)
                elif kind == "bem":
                    if "NR_ORDEM_CANDIDATO" not in r:  # 12-column originals: position among the candidacy's rows
                        ck = (clean(r["ANO_ELEICAO"]), fold(r["DS_ELEICAO"]), clean(r["SQ_CANDIDATO"]))
                        order[ck] += 1
                        r = dict(r, NR_ORDEM_CANDIDATO=str(order[ck]))
                    key = bem_key(r)
                else:
                    key = leg_key(r)
                seen[key] += 1
                found = index[kind].get(key, [])
                if not found:
                    st["UNACCOUNTED(not found)"] += 1
                    examples.setdefault("missing", (line, key))
                    continue
                if seen[key] > 1:
                    st["duplicate key in file"] += 1
                st["stored"] += 1
                if rj:
                    st["stored with warnings"] += 1
                e = found[0]
                for c in cols:
                    if c not in ecols[kind]:
                        not_exported.add(c)
                        continue
                    if kind == "leg" and c in LEGEND_UNSTORED:
                        continue
                    a, b = norm(c, r.get(c)), norm(c, e.get(c))
                    if a == b:
                        continue
                    if seen[key] > 1 or len(found) > 1:
                        diffs["(dup) " + c] += 1
                        continue
                    if a is None:
                        # The source has no value; another file of the run gave the object one.
                        diffs["(filled) " + c] += 1
                        continue
                    if isinstance(a, str) and isinstance(b, str) and fold(a) == fold(b):
                        # One object's value spelt in another case (or accents) by another file: one is kept.
                        diffs["(case) " + c] += 1
                        continue
                    warned = any(c == w or w.endswith(c) or str(cols.index(c) + 1) == w for w in warned_cols)
                    tag = ("warned " if warned else "") + c
                    diffs[tag] += 1
                    examples.setdefault(tag, (line, r.get(c), e.get(c)))
            report["files"][f"{path}:{name}"] = {
                "kind": kind, "counts": dict(st), "field_differences": dict(diffs),
                "columns_not_in_export": sorted(not_exported), "examples": {k: str(v) for k, v in examples.items()},
            }
    print(json.dumps(report, indent=1, ensure_ascii=False))


main()
