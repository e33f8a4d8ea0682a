#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks the layering rules of docs/architecture.md on a source tree.

1. Every `#include "ringfence/<layer>/..."` in src/<layer>/ and include/ringfence/<layer>/ must
   name a layer that <layer> may use (the table below); relative includes may not leave the
   including file's own layer.
2. `throw` appears only at the CLI edge: src/app, src/cli (and the cli headers).
3. On the real tree (one with docs/architecture.md): the table is the real graph, no allowed edge
   goes unused; the "may include" column of docs/architecture.md says the same; and every rf_X_dep a
   layer's meson.build links is a layer the table lets it use.

usage: check_layers.py ROOT      check the tree at ROOT; exit 1 and print file:line on violations
       check_layers.py --self-test
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# layer -> the other layers it may include (a layer may always include itself).
ALLOWED: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "spec": frozenset({"base"}),
    "policy": frozenset({"base"}),
    "net": frozenset({"base"}),
    "presets": frozenset({"base"}),
    "review": frozenset({"base", "presets"}),
    "cli": frozenset({"base", "spec", "policy", "presets", "net", "review"}),
    "engine": frozenset({"base", "spec", "net"}),
    "probe": frozenset({"base"}),
    "verify": frozenset({"presets", "base"}),
}
# Layers that may include everything.
TOP_LAYERS = frozenset({"app"})
KNOWN_LAYERS = frozenset(ALLOWED) | TOP_LAYERS

# (including layer, included layer) -> the only headers of the included layer it may use.
ONLY_HEADERS: dict[tuple[str, str], frozenset[str]] = {}

# Layers whose code may throw: the command-line edge.
THROW_ALLOWED = frozenset({"app", "cli"})

SOURCE_SUFFIXES = {".cpp", ".cc", ".cxx", ".hpp", ".hh", ".h", ".inc", ".ipp"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
THROW_RE = re.compile(r"\bthrow\b")


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def strip_code(text: str) -> tuple[str, str]:
    """Returns (text without comments, text without comments and literals).

    Removed characters become spaces and newlines are kept, so line numbers still match.
    """
    no_comments: list[str] = []
    no_literals: list[str] = []
    i, n = 0, len(text)

    def blank(s: str) -> str:
        return "".join(c if c == "\n" else " " for c in s)

    def emit(s: str, keep_in_first: bool) -> None:
        no_comments.append(s if keep_in_first else blank(s))
        no_literals.append(blank(s))

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = i
            # A backslash-newline continues a line comment.
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            emit(text[i:j], keep_in_first=False)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            emit(text[i:j], keep_in_first=False)
            i = j
        elif c == '"' and raw_string_prefix(text, i):
            m = re.match(r'"([^()\\ \t\n]{0,16})\(', text[i:])
            if m is None:
                emit(c, keep_in_first=True)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            emit(text[i:j], keep_in_first=True)
            i = j
        elif c == '"' or (c == "'" and not digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            emit(text[i:j], keep_in_first=True)
            i = j
        else:
            no_comments.append(c)
            no_literals.append(c)
            i += 1
    return "".join(no_comments), "".join(no_literals)


def token_before(text: str, i: int) -> str:
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.'"):
        j -= 1
    return text[j:i]


def raw_string_prefix(text: str, i: int) -> bool:
    return token_before(text, i).lstrip("'") in {"R", "LR", "uR", "UR", "u8R"}


def digit_separator(text: str, i: int) -> bool:
    # 1'000'000: a quote inside a number literal is not a character literal.
    tok = token_before(text, i)
    return bool(tok) and tok[0].isdigit()


def layer_of(rel: Path) -> str | None:
    parts = rel.parts
    if len(parts) >= 3 and parts[0] == "src":
        return parts[1]
    if len(parts) >= 4 and parts[0] == "include" and parts[1] == "ringfence":
        return parts[2]
    return None


def source_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for top in (root / "src", root / "include" / "ringfence"):
        if not top.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                p = Path(dirpath) / name
                if p.suffix in SOURCE_SUFFIXES:
                    files.append(p)
    return files


def check_include(rel: Path, layer: str, target: str, quoted: bool, src_dir: Path,
                  root: Path) -> str | None:
    if target.startswith("ringfence/"):
        parts = target.split("/")
        if len(parts) < 3:
            return f'"{target}": headers live in ringfence/<layer>/'
        dep = parts[1]
        if dep not in KNOWN_LAYERS:
            return f'"{target}": unknown layer "{dep}"'
        if dep == layer or layer in TOP_LAYERS:
            return None
        if dep not in ALLOWED[layer]:
            allowed = ", ".join(sorted(ALLOWED[layer])) or "no other layer"
            return f'layer "{layer}" may not include "{target}" (it may use: {allowed})'
        only = ONLY_HEADERS.get((layer, dep))
        if only is not None and "/".join(parts[2:]) not in only:
            return (f'layer "{layer}" may include only {", ".join(sorted(only))} from '
                    f'"{dep}", not "{target}"')
        return None
    if quoted and ".." in Path(target).parts:
        # A relative include must stay inside its own layer's folder.
        resolved = Path(os.path.normpath(src_dir / target))
        try:
            other = layer_of(resolved.relative_to(root))
        except ValueError:
            other = None
        if other != layer:
            return f'"{target}" reaches outside layer "{layer}"; include "ringfence/<layer>/..."'
    return None


def check_tree(root: Path) -> tuple[list[Violation], int]:
    root = root.resolve()
    violations: list[Violation] = []
    used: set[tuple[str, str]] = set()
    files = source_files(root)
    for path in files:
        rel = path.relative_to(root)
        layer = layer_of(rel)
        if layer is None:
            continue
        if layer not in KNOWN_LAYERS:
            violations.append(Violation(str(rel), 1, f'unknown layer "{layer}" (add it to the '
                                                      "table in tools/check_layers.py and "
                                                      "docs/architecture.md)"))
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        no_comments, no_literals = strip_code(text)
        for lineno, line in enumerate(no_comments.splitlines(), start=1):
            m = INCLUDE_RE.match(line)
            if m:
                parts = m.group(2).split("/")
                if len(parts) >= 3 and parts[0] == "ringfence" and parts[1] != layer:
                    used.add((layer, parts[1]))
                msg = check_include(rel, layer, m.group(2), m.group(1) == '"', path.parent, root)
                if msg:
                    violations.append(Violation(str(rel), lineno, msg))
        if layer not in THROW_ALLOWED:
            for lineno, line in enumerate(no_literals.splitlines(), start=1):
                if THROW_RE.search(line):
                    violations.append(Violation(
                        str(rel), lineno,
                        f'"throw" in layer "{layer}": core code returns Result (only src/app and '
                        "src/cli may throw)"))
    if (root / "docs" / "architecture.md").is_file():
        violations += check_graph(root, used)
    return violations, len(files)


DOC_ROW_RE = re.compile(r"^\|\s*`([a-z]+)`\s*\|[^|]*\|.*\|\s*([^|]*?)\s*\|\s*$")
MESON_DEP_RE = re.compile(r"\brf_([a-z]+)_dep\b")


def doc_table(text: str) -> dict[str, frozenset[str]]:
    """The "may include" column of the layers table: layer -> the layers it names."""
    out: dict[str, frozenset[str]] = {}
    for line in text.splitlines():
        m = DOC_ROW_RE.match(line)
        if not m or m.group(1) not in KNOWN_LAYERS:
            continue
        cell = m.group(2)
        if cell.strip() in ("everything", "nothing else"):
            out[m.group(1)] = frozenset()
            continue
        names = {w.strip().split()[0].strip("`") for w in cell.split(",") if w.strip()}
        out[m.group(1)] = frozenset(names)
    return out


def check_graph(root: Path, used: set[tuple[str, str]]) -> list[Violation]:
    violations: list[Violation] = []
    for layer, allowed in sorted(ALLOWED.items()):
        for dep in sorted(allowed):
            if (layer, dep) not in used:
                violations.append(Violation(
                    "tools/check_layers.py", 1,
                    f'layer "{layer}" may use "{dep}" but includes nothing of it: drop the edge'))
    doc = root / "docs" / "architecture.md"
    table = doc_table(doc.read_text(encoding="utf-8"))
    for layer in sorted(KNOWN_LAYERS):
        want = frozenset() if layer in TOP_LAYERS else ALLOWED[layer]
        if layer not in table:
            violations.append(Violation(str(doc.relative_to(root)), 1, f'no row for layer "{layer}"'))
        elif table[layer] != want:
            violations.append(Violation(
                str(doc.relative_to(root)), 1,
                f'layer "{layer}": the table says it may include {sorted(table[layer]) or "nothing"}, '
                f"tools/check_layers.py says {sorted(want) or 'nothing'}"))
    for layer in sorted(ALLOWED):
        build = root / "src" / layer / "meson.build"
        if not build.is_file():
            continue
        for lineno, line in enumerate(build.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            for dep in MESON_DEP_RE.findall(code):
                if dep in KNOWN_LAYERS and dep != layer and dep not in ALLOWED[layer]:
                    violations.append(Violation(
                        str(build.relative_to(root)), lineno,
                        f'layer "{layer}" links rf_{dep}_dep, which the table does not let it use'))
    return violations


def main_check(root: Path) -> int:
    if not (root / "src").is_dir() and not (root / "include").is_dir():
        print(f"check_layers: {root}: no src/ or include/ folder", file=sys.stderr)
        return 2
    violations, count = check_tree(root)
    for v in violations:
        print(v)
    if violations:
        print(f"check_layers: {len(violations)} violation(s) in {count} files", file=sys.stderr)
        return 1
    print(f"check_layers: {count} files follow the layering rules")
    return 0


# --- self-test ---------------------------------------------------------------------------------

GOOD_TREE = {
    "include/ringfence/base/result.hpp": "#pragma once\nnamespace rf::base {}\n",
    "include/ringfence/spec/spec.hpp": '#pragma once\n#include "ringfence/base/result.hpp"\n',
    "include/ringfence/policy/bpf_program.hpp": '#include "ringfence/base/result.hpp"\n',
    "include/ringfence/policy/compiler.hpp": '#include "ringfence/policy/bpf_program.hpp"\n',
    "src/base/result.cpp": (
        '#include "ringfence/base/result.hpp"\n'
        "// throw is only mentioned in this comment; #include \"ringfence/spec/spec.hpp\"\n"
        "/* nor here: throw\n"
        '#include "ringfence/engine/launch.hpp" */\n'
        'const char* kText = "throw";\n'
        "const char kQuote = '\"';\n"
        "const char* kRaw = R\"x(throw \"quoted\" )\" throw)x\";\n"
        "const long kBig = 1'000'000;\n"
        "int thrower = 0;  // not the keyword\n"
    ),
    "src/engine/launcher.cpp": (
        '#include "ringfence/net/address.hpp"\n'
        '#include "ringfence/spec/spec.hpp"\n'
        '#include "sync.hpp"\n'
        '#include "../engine/sync.hpp"\n'
        "#include <vector>\n"
    ),
    "src/engine/sync.hpp": "#pragma once\n",
    "src/cli/bwrap_args.cpp": '#include "ringfence/spec/spec.hpp"\nvoid f() { throw 1; }\n',
    "src/app/main.cpp": (
        '#include "ringfence/engine/launch.hpp"\n'
        '#include "ringfence/policy/compiler.hpp"\n'
        "int main() { try { throw 1; } catch (...) {} }\n"
    ),
}

# path -> (content, expected violation lines)
BAD_FILES: dict[str, tuple[str, list[int]]] = {
    "src/base/bad.cpp": ('#include "ringfence/base/result.hpp"\n#include "ringfence/spec/spec.hpp"\n',
                         [2]),
    "src/engine/bad.cpp": ('#include "ringfence/policy/compiler.hpp"\n'
                           '#include "ringfence/cli/bwrap_args.hpp"\n'
                           '#include "../spec/private.hpp"\n', [1, 2, 3]),
    "src/spec/throws.cpp": ("int f(int x) {\n  if (x) throw x;\n  return 0;\n}\n", [2]),
    "include/ringfence/net/cidr.hpp": ('#pragma once\n\n#include "ringfence/engine/launch.hpp"\n',
                                       [3]),
    "include/ringfence/presets/p.hpp": ('#include "ringfence/policy/ast.hpp"\n'
                                        '#include "ringfence/net/cidr.hpp"\n', [1, 2]),
    "src/probe/probe.cpp": ('#include "ringfence/engine/launch.hpp"\n'
                            '#  include <ringfence/cli/bwrap_args.hpp>\n', [1, 2]),
    "src/mystery/x.cpp": ("int x;\n", [1]),
    "src/policy/bad.cpp": ('#include "ringfence/nowhere/x.hpp"\n#include "ringfence/flat.hpp"\n',
                           [1, 2]),
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")


def run_cli(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(Path(__file__).resolve()), str(root)],
                          capture_output=True, text=True, check=False)


def self_test() -> int:
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="check-layers-") as tmp:
        good = Path(tmp) / "good"
        write_tree(good, GOOD_TREE)
        violations, _ = check_tree(good)
        if violations:
            failures.append("good tree reported: " + "; ".join(map(str, violations)))
        proc = run_cli(good)
        if proc.returncode != 0:
            failures.append(f"good tree: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")

        bad = Path(tmp) / "bad"
        write_tree(bad, GOOD_TREE)
        write_tree(bad, {rel: content for rel, (content, _) in BAD_FILES.items()})
        violations, _ = check_tree(bad)
        got = sorted((v.path, v.line) for v in violations)
        want = sorted((rel, line) for rel, (_, lines) in BAD_FILES.items() for line in lines)
        if got != want:
            failures.append(f"bad tree: expected {want}\n  got {got}\n  " +
                            "\n  ".join(map(str, violations)))
        proc = run_cli(bad)
        if proc.returncode != 1:
            failures.append(f"bad tree: expected exit 1, got {proc.returncode}")
        for rel, (_, lines) in BAD_FILES.items():
            for line in lines:
                if f"{rel}:{line}:" not in proc.stdout:
                    failures.append(f"bad tree: output lacks {rel}:{line}:")

    for f in failures:
        print(f"self-test: FAIL: {f}", file=sys.stderr)
    if failures:
        return 1
    print("check_layers self-test: ok")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 2 and not argv[1].startswith("-"):
        return main_check(Path(argv[1]))
    print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
