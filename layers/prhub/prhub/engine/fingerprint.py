"""A short hash of the data a module judges with: its upper-case constants (tables, patterns, phrases, word lists,
the rule table's rows, the data files they name), in a canonical form that is the same in every process.

The engine's version (prhub.engine.scoring.ENGINE_VERSION) is built from it, so a changed rule, pattern or phrase
gives cached results a new key without a hand bump. Code is not hashed (its bytecode differs between Python
versions, its source need not ship): a change of code keeps its hand-kept revision. No `hash()` anywhere (it is
salted per process), no `repr` of an object (it names memory addresses), no absolute path (it names the machine).
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")  # a module global named as a constant is read as data


def canonical(value: Any) -> Any:
    """`value` as JSON data that depends on its content alone."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict | set | frozenset | list | tuple):
        return _collection(value)
    if isinstance(value, FunctionType):
        return _function(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ["data", type(value).__qualname__,
                {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}]
    return _atom(value)


def _collection(value: dict[Any, Any] | set[Any] | frozenset[Any] | list[Any] | tuple[Any, ...]) -> Any:
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):  # a JSON object: its keys are sorted when dumped
            return {k: canonical(v) for k, v in value.items()}
        return ["dict", sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=_order)]
    if isinstance(value, set | frozenset):  # in sorted order: a set's order changes with the process's hash salt
        if all(isinstance(v, str) for v in value):
            return ["set", sorted(value)]
        return ["set", sorted((canonical(v) for v in value), key=_order)]
    return [canonical(v) for v in value]


def _function(value: FunctionType) -> Any:
    """A function by its name and the values it was made with (a closure's cells, its defaults): a rule's condition
    built by a factory (`_words_hit(SILENT, ...)`) changes with its pattern and arguments. A function it closes over
    counts by its name (no recursion: a nested function may close over itself)."""
    cells = [cell.cell_contents for cell in value.__closure__ or ()]
    return ["function", value.__qualname__,
            [["function", c.__qualname__] if isinstance(c, FunctionType) else canonical(c) for c in cells],
            canonical(value.__defaults__)]


def _atom(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return ["enum", type(value).__qualname__, canonical(value.value)]
    if isinstance(value, re.Pattern):
        return ["re", value.pattern if isinstance(value.pattern, str) else value.pattern.hex(), value.flags]
    if isinstance(value, bytes):
        return ["bytes", hashlib.sha256(value).hexdigest()]
    if isinstance(value, Path):  # a data file by its name and content, not where it lies
        return ["file", value.name, hashlib.sha256(value.read_bytes()).hexdigest() if value.is_file() else None]
    return ["object", type(value).__qualname__]  # a parser, a lock: code, not data


def _order(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def constants(module: ModuleType, skip: Iterable[str] = ()) -> dict[str, Any]:
    """The canonical form of `module`'s constants, by name (`skip`: names that are not inputs, such as the version
    itself)."""
    left_out = set(skip)
    return {name: canonical(value) for name, value in sorted(vars(module).items())
            if CONSTANT.fullmatch(name) and name not in left_out and not isinstance(value, ModuleType | type)}


def digest(modules: Iterable[ModuleType], skip: Iterable[str] = (), length: int = 10) -> str:
    """The first `length` hex digits of the SHA-256 of `modules`' constants."""
    left_out = tuple(skip)
    data = {module.__name__: constants(module, left_out) for module in modules}
    return hashlib.sha256(_order(data).encode()).hexdigest()[:length]
