"""The dataset card of `cw tasks export --format hf`: the folder's README.md, with Hugging Face YAML front
matter (license, pretty_name, tags, source_datasets, configs) and, per config, what a user must know:
where the atoms came from and under which licence, how the tasks were generated (seeds, levels, composer
version, run parameters), the date window of the atoms (contamination), citations and limitations.

What the card says of a config is computed when it is exported (`facts`, from the atoms themselves) and
kept in its parquet file's schema metadata, so a folder that several exports wrote gets one card whose
every section is true of the file it describes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from . import datasets
from .records import Atom

META_KEY = b"codewalk.card"
SPLIT = "test"
COLUMNS = ("level", "status", "seed", "run", "run_params", "generator_version")  # what a config's section counts

CODEWALK_BIBTEX = """@article{fang2026codewalk,
  title   = {CodeWalk: Generating Coding Benchmarks by Walking a Problem Graph},
  author  = {Fang, Jiaxin and He, Runyuan and Gupta, Arnav and Kumawat, Sahil and Mao, Huanzhi and Cheung, Alvin},
  journal = {arXiv preprint arXiv:2610.15345},
  year    = {2026}
}"""

# Sources that are not datasets codewalk pins (codewalk/datasets.json), by domain.
OTHER_SOURCES: dict[str, dict[str, str]] = {
    "demo": {"title": "codewalk's built-in demo catalogue", "upstream": "codewalk: loaders/demo_atoms.jsonl",
             "licence": "MIT (codewalk)", "license_id": "mit", "citation": "", "note": ""},
    "repair": {
        "title": "SWE-bench-style bug instances (SWE-bench, SWE-rebench, or `cw mine repair`) and the "
                 "repositories they name",
        "upstream": "the instance rows given to `cw load repair`; each task's `repo` and `base_commit`",
        "licence": "the licence of the instance rows loaded, and each repository's own licence for its code "
                   "and tests (the repositories are listed below)",
        "license_id": "other",
        "citation": "SWE-bench: Jimenez et al., ICLR 2024, arXiv:2310.06770; SWE-rebench: Badertdinov et al., "
                    "arXiv:2505.20411 (cite the one your rows came from)",
        "note": "Tasks grade on the FAIL_TO_PASS and PASS_TO_PASS tests of the repository at c*: a change those "
                "tests do not exercise is not judged.",
    },
}


def facts(domain: str, data_source: str, atoms: Iterable[Atom]) -> dict[str, Any]:
    """What the card says of one domain's export, from the atoms its tasks use: the sources (a pinned
    dataset when the atoms came from one), the repositories named, and the first and last `created_at`
    of the atoms that carry one (repair: the fix date d(b))."""
    atoms = list(atoms)
    pinned = datasets.manifest()
    sources = []
    for d in pinned.values():
        if any(d.made(domain, a.payload) for a in atoms):
            sources.append({"name": d.name, "title": d.title, "licence": d.licence, "license_id": d.license_id,
                            "upstream": ", ".join(f"github.com/{s.repo}@{s.commit}" for s in d.sources),
                            "citation": d.citation, "note": d.note})
    if not sources:
        other = OTHER_SOURCES.get(domain) or {
            "title": data_source or f"not stated by the {domain} domain", "upstream": data_source,
            "licence": "not stated by the domain: ask its author", "license_id": "unknown", "citation": "",
            "note": ""}
        sources.append({"name": domain, **other})
    dates = sorted(str(a.payload["created_at"]) for a in atoms if a.payload.get("created_at"))
    repos = sorted({str(a.summary["repo"]) for a in atoms if a.summary.get("repo")})
    return {"domain": domain, "data_source": data_source, "sources": sources, "repositories": repos,
            "dates": {"field": "created_at", "first": dates[0], "last": dates[-1], "atoms": len(dates),
                      "of": len(atoms)} if dates else None}


def render(out: Path, release: list[str] | None = None) -> str:
    """The card of every `<domain>/<split>.parquet` under `out` (`cw tasks export`: the split `test`; a release:
    its splits), with a release's own section when given."""
    configs = []
    for folder in sorted({p.parent for p in out.glob("*/*.parquet")}):
        splits = sorted(folder.glob("*.parquet"), key=lambda p: (p.stem != SPLIT, p.stem))
        meta = pq.read_schema(splits[0]).metadata or {}
        cols: dict[str, list[Any]] = {}
        for data in splits:
            names = pq.read_schema(data).names
            table = pq.read_table(data, columns=[c for c in COLUMNS if c in names]).to_pydict()
            for c in COLUMNS:
                cols.setdefault(c, []).extend(table.get(c, []))
            cols.setdefault("split", []).extend([data.stem] * len(table["level"]))
        configs.append((folder.name, cols, json.loads(meta[META_KEY]) if META_KEY in meta else None))
    sources = [s for _, _, f in configs if f for s in f["sources"]]
    licences = sorted({s["license_id"] for s in sources}) or ["unknown"]
    upstream = sorted({u for s in sources if s["name"] in datasets.manifest() for u in s["upstream"].split(", ")})
    front = ["---", "pretty_name: CodeWalk tasks",
             "license: " + licences[0] if len(licences) == 1 else "license:\n" + _list(licences),
             "tags:\n" + _list(["code", "compositional", "benchmark", "codewalk"])]
    if upstream:
        front.append("source_datasets:\n" + _list(upstream))
    front.append("configs:\n" + "\n".join(
        f"- config_name: {name}\n  data_files:\n" + "\n".join(
            f"  - split: {split}\n    path: {name}/{split}.parquet" for split in dict.fromkeys(cols["split"]))
        for name, cols, _ in configs))
    body = [
        "# CodeWalk tasks", "",
        f"Compositional coding tasks made by codewalk ({'`cw release`' if release else '`cw tasks export --format hf`'}): "
        "each task joins N verified",
        "atomic problems found by a walk on a problem graph, and was admitted only if every atom is still",
        "unsolved in the composite and the joint reference passes the verifier that grades models. No language",
        "model was called to make them.",
        "The `verifier` column (JSON) is what `cw grade` needs; `seed`, "
        + ("the release's plan and manifest.json," if release else "`run`, `run_params`,"),
        "`generator_version`, `data_source` and `data_revision` say how to make the task again.", "",
        "## Licence", "",
        "Each config keeps the licence of the data its atoms came from (the most restrictive one applies to a "
        "copy of the whole folder):", "",
        "| config | source | upstream | licence |", "|---|---|---|---|"]
    for name, _, f in configs:
        for s in f["sources"] if f else [{"title": "not recorded by this export", "upstream": "", "licence": "unknown"}]:
            body.append(f"| {name} | {s['title']} | {s['upstream']} | {s['licence']} |")
    body += ["", *(release or []), "## Configs", ""]
    for name, cols, f in configs:
        body += _section(name, cols, f)
    body += ["## Citation", "", "```bibtex", CODEWALK_BIBTEX, "```", "", "And the sources of the configs used:", ""]
    cited = {s["citation"] for s in sources if s["citation"]}
    body += [f"- {c}" for c in sorted(cited)] or ["- (none recorded)"]
    body += ["", "## Limitations", "",
             "- Admission proves what the verifier checks and nothing more: every atom failed its own check in "
             "the composite, and the reference passed the task's verifier, as codewalk ran them with the tool "
             "versions of the machine that made the tasks. A model's answer is graded by the same verifier, so "
             "an answer it cannot tell from a correct one counts as correct.",
             "- The atoms come from public datasets and repositories, so a model may have seen them (and, for "
             "repair, their fixes) in training: compare its training cut-off with each config's date window "
             "and with the upstream commits above. Composition makes new tasks; it does not hide the atoms' "
             "text.",
             "- Which levels exist, and how many tasks each has, follow the sources present when the tasks were "
             "made: the largest level is what the problem graph supported, not a chosen difficulty."]
    notes = sorted({f"{s['title']}: {s['note']}" for s in sources if s.get("note")})
    body += [f"- {n}" for n in notes]
    return "\n".join(front) + "\n---\n\n" + "\n".join(body) + "\n"


def _list(values: Iterable[str]) -> str:
    return "\n".join(f"- {json.dumps(v)}" if ":" in v or "@" in v else f"- {v}" for v in values)


def _section(name: str, cols: Mapping[str, list[Any]], f: dict[str, Any] | None) -> list[str]:
    levels = Counter(cols["level"])
    counts = ", ".join(f"N={n}: {c}" for n, c in sorted(levels.items()))
    statuses = ", ".join(sorted(set(cols["status"])))
    generators = sorted(set(cols["generator_version"]))
    composers = sorted({g.rpartition(" / ")[2] for g in generators if " / " in g})
    seeds = ", ".join(str(s) for s in sorted(set(cols["seed"])))
    runs = sorted(set(cols["run_params"]))
    splits = Counter(cols["split"])
    by_split = "" if set(splits) == {SPLIT} else "; splits: " + ", ".join(f"{s} {c}" for s, c in splits.items())
    lines = [f"### {name}", "", f"{len(cols['level'])} tasks ({statuses}); {counts}{by_split}.", "",
             "Generation:", "",
             f"- seeds: {seeds}",
             f"- levels (N): {', '.join(str(n) for n in sorted(levels))}",
             f"- generator: {', '.join(generators)}; composer version: {', '.join(composers) or 'not recorded'}",
             (f"- runs: {len(set(cols['run']))}, with parameters:" if cols["run"] else
              "- runs: not recorded (a release leaves out which run made each task: see its manifest.json)")]
    lines += [f"  - `{p}`" for p in runs] or (["  - not recorded"] if cols["run"] else [])
    lines.append("")
    if f is None:
        lines += ["Sources, licence and dates: not recorded by the codewalk that exported this config.", ""]
    else:
        lines.append(f"Source: {f['data_source'] or 'not stated'}.")
        if f["repositories"]:
            shown = f["repositories"][:50]
            more = f" and {len(f['repositories']) - len(shown)} more" if len(f["repositories"]) > len(shown) else ""
            lines.append(f"Repositories: {', '.join(shown)}{more}.")
        d = f["dates"]
        if d:
            lines.append(f"Date window of the atoms (`{d['field']}`, {d['atoms']} of {d['of']} atoms dated): "
                         f"{d['first']} to {d['last']}. A model whose training data reaches past {d['first']} may "
                         "have seen some of these fixes.")
        else:
            lines.append("Date window of the atoms: the atoms carry no dates (see the upstream commits for when "
                         "the source was published).")
        lines.append("")
    lines += ["```python", "from datasets import load_dataset",
              f"ds = load_dataset(PATH, {name!r}, split={next(iter(splits))!r})", "```", ""]
    return lines
