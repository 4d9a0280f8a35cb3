"""Split one file's text into chunks with exact 1-based line ranges, and collect what each Python symbol calls/imports.

Python: top-level functions, classes and methods (stdlib `ast`, decorators included in the range); the lines outside any
definition become module chunks (imports, constants, scripts), and a class's own lines (header, docstring, attributes)
a class chunk. Markdown and reStructuredText split at headings; other text into fixed line windows. Long runs are cut
into windows so no chunk without a symbol grows without bound. A Python file that does not parse is windowed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import cast

WINDOW_LINES = 40  # other text: fixed windows (also the benchmark baseline's window size)
MAX_RUN_LINES = 60  # module chunks and long sections are cut at this many lines
PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
MARKDOWN_SUFFIXES = (".md", ".markdown")
RST_SUFFIXES = (".rst",)
_RST_UNDERLINE = set("=-~^\"'`#*+:._")


@dataclass
class Ref:
    kind: str  # call | import
    name: str  # last dotted part
    full_name: str | None
    line: int


@dataclass
class RawChunk:
    start_line: int
    end_line: int
    kind: str  # function, class, method, module, section, window
    symbol_name: str | None
    text: str
    refs: list[Ref] = field(default_factory=list)


def split_lines(text: str) -> list[str]:
    """Lines as `ast` numbers them: only \\n, \\r\\n and \\r end a line (str.splitlines also splits at \\f)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def language_of(path: str) -> str:
    lower = path.lower()
    for suffixes, language in ((PYTHON_SUFFIXES, "python"), (MARKDOWN_SUFFIXES, "markdown"), (RST_SUFFIXES, "rst")):
        if lower.endswith(suffixes):
            return language
    return "text"


def chunk_text(path: str, text: str) -> list[RawChunk]:
    lines = split_lines(text)
    language = language_of(path)
    if language == "python":
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):  # py2 test data, deliberately broken files, NUL bytes
            return windows(lines, 1, len(lines), "window", None)
        return _python_chunks(tree, lines)
    if language == "markdown":
        return _sections(lines, _markdown_headings(lines))
    if language == "rst":
        return _sections(lines, _rst_headings(lines))
    return windows(lines, 1, len(lines), "window", None)


def _make(lines: list[str], start: int, end: int, kind: str, symbol: str | None) -> RawChunk | None:
    while start <= end and not lines[start - 1].strip():  # blank edges carry nothing; keep ranges exact
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    if start > end:
        return None
    return RawChunk(start, end, kind, symbol, "\n".join(lines[start - 1:end]))


def windows(lines: list[str], start: int, end: int, kind: str, symbol: str | None,
            size: int = WINDOW_LINES) -> list[RawChunk]:
    out = []
    for s in range(start, end + 1, size):
        chunk = _make(lines, s, min(end, s + size - 1), kind, symbol)
        if chunk:
            out.append(chunk)
    return out


# Python -------------------------------------------------------------------------------------------------------------

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _span(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[int, int]:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return start, node.end_lineno or node.lineno


def _python_chunks(tree: ast.Module, lines: list[str]) -> list[RawChunk]:
    out: list[RawChunk] = []
    _container(tree.body, lines, 1, len(lines), None, out)
    out.sort(key=lambda c: c.start_line)
    return out


def _container(body: list[ast.stmt], lines: list[str], start: int, end: int, prefix: str | None,
               out: list[RawChunk]) -> None:
    """Chunk the definitions in `body`; the lines between them belong to the container (module or class)."""
    cursor = start
    loose: list[ast.stmt] = []  # statements of the container itself, for its refs

    def flush(upto: int) -> None:
        nonlocal loose
        if cursor <= upto:
            kind = "class" if prefix else "module"
            pieces = windows(lines, cursor, upto, kind, prefix, MAX_RUN_LINES)
            for piece in pieces:
                piece.refs = _refs([s for s in loose if piece.start_line <= s.lineno <= piece.end_line])
            out.extend(pieces)
        loose = []

    for node in body:
        if isinstance(node, _DEFS):
            s, e = _span(node)
            flush(s - 1)
            qualified = f"{prefix}.{node.name}" if prefix else node.name
            if isinstance(node, ast.ClassDef):
                _container(node.body, lines, s, e, qualified, out)
            else:
                chunk = _make(lines, s, e, "method" if prefix else "function", qualified)
                if chunk:
                    chunk.refs = _refs([node])
                    out.append(chunk)
            cursor = e + 1
        else:
            loose.append(node)
    flush(end)


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop)


def _subclasses(cls: type[ast.AST]) -> Iterator[type[ast.AST]]:
    sub: type[ast.AST]
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _fields_getter(fields: tuple[str, ...]) -> Callable[[ast.AST], tuple[object, ...]]:
    """A node's field values in one call (attrgetter returns a lone value bare, so one field is wrapped)."""
    if len(fields) == 1:
        get = attrgetter(fields[0])
        return lambda node: (get(node),)
    return attrgetter(*fields) if fields else lambda node: ()


# every node type a walk goes into, with its fields' getter; leaves hold no call or import. One dict lookup says
# whether a child is walked: two isinstance checks a child were a third of the walk
_WALKED = {cls: _fields_getter(cls._fields) for cls in set(_subclasses(ast.AST)) if not issubclass(cls, _LEAVES)}


def _refs(nodes: list[ast.AST]) -> list[Ref]:
    """Calls and imports under `nodes`, each once. A plain stack walk: ast.walk's generators cost a third of indexing."""
    out: list[Ref] = []
    stack = list(nodes)
    walked = _WALKED
    while stack:
        node = stack.pop()
        kind = type(node)
        # The casts restate what `kind is ...` just checked: the type is compared once per node, not by isinstance.
        if kind is ast.Call:
            call = cast(ast.Call, node)
            func = call.func
            name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
            if name:
                out.append(Ref("call", name, _dotted(func), call.lineno))
        elif kind is ast.Import:
            imp = cast(ast.Import, node)
            for alias in imp.names:
                out.append(Ref("import", alias.name.rsplit(".", 1)[-1], alias.name, imp.lineno))
            continue
        elif kind is ast.ImportFrom:
            imp_from = cast(ast.ImportFrom, node)
            base = "." * imp_from.level + (imp_from.module or "")
            for alias in imp_from.names:
                full = f"{base}.{alias.name}" if base and not base.endswith(".") else base + alias.name
                out.append(Ref("import", alias.name, full, imp_from.lineno))
            continue
        for value in walked[kind](node):
            if type(value) is list:
                if value:
                    stack.extend([v for v in value if type(v) in walked])
            elif type(value) in walked:
                stack.append(cast(ast.AST, value))
    out.sort(key=lambda r: r.line)
    seen: set[tuple[str, str, str | None]] = set()
    unique = []  # each name once per chunk, at its first line: a test calling assertEqual 50 times is one reference
    for ref in out:
        key = (ref.kind, ref.name, ref.full_name)
        if key not in seen:
            seen.add(key)
            unique.append(ref)
    return unique


# Markdown and reStructuredText ----------------------------------------------------------------------------------------

def _markdown_headings(lines: list[str]) -> list[tuple[int, str]]:
    out, fenced = [], False
    for i, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and stripped.startswith("#") and stripped.lstrip("#").startswith((" ", "\t")):
            out.append((i, stripped.lstrip("#").strip()))
    return out


def _rst_headings(lines: list[str]) -> list[tuple[int, str]]:
    out = []
    for i in range(len(lines) - 1):
        title, under = lines[i].rstrip(), lines[i + 1].rstrip()
        if (title.strip() and len(under) >= len(title) >= 1 and len(set(under)) == 1 and under[0] in _RST_UNDERLINE
                and not title.startswith(" ") and set(title) != set(under)):
            start = i if i > 0 and lines[i - 1].rstrip() == under else i + 1  # an overline belongs to the heading
            out.append((start, title.strip()))
    return out


def _sections(lines: list[str], headings: list[tuple[int, str]]) -> list[RawChunk]:
    starts: list[tuple[int, str | None]] = list(headings)
    if not starts or starts[0][0] > 1:
        starts.insert(0, (1, None))  # text before the first heading
    out = []
    for n, (s, title) in enumerate(starts):
        e = starts[n + 1][0] - 1 if n + 1 < len(starts) else len(lines)
        out.extend(windows(lines, s, e, "section", title, MAX_RUN_LINES))
    return out
