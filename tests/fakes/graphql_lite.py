"""A small, honest GraphQL for the fake GitHub: parse, check limits, price, execute.

It parses the executable subset prhub's queries use: one operation (`query` with a name and
variable definitions, or the `{ ... }` shorthand), fields with aliases and arguments (variables,
ints, strings, booleans, null, enums, lists, objects), inline fragments (`... on Type`),
`__typename`, and `#` comments; a `mutation` is parsed as a query is, and executed against the
fake's mutation root. Named fragments, directives and subscriptions are refused with an error, not
guessed at. There is no schema validation beyond what the resolvers check: an unknown
field is an `undefinedField` error, as GitHub reports it.

Limits and cost follow GitHub's documentation (docs.github.com, "Rate limits and node limits for
the GraphQL API"): every connection needs `first` or `last` within 1..100; a query may ask for at
most 500,000 nodes (the product of the `first`s down each path, summed); its cost is the number of
requests its connections need (one per parent node that can exist), divided by 100, rounded,
at least 1. The exact wording of GitHub's error messages is from memory, not confirmed.
"""
from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

NODE_LIMIT = 500_000
TOKEN = re.compile(r"""
    (?P<skip>[\s,\ufeff]+|\#[^\n]*)
  | (?P<spread>\.\.\.)
  | (?P<punct>[!$():=@\[\]{}|])
  | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<name>[_A-Za-z][_0-9A-Za-z]*)
""", re.VERBOSE)


class GraphQLError(Exception):
    """An error GraphQL reports in `errors` (type as GitHub spells it, where it has one)."""

    def __init__(self, message: str, kind: str | None = None, path: Sequence[str | int] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.path = list(path) if path is not None else None

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"message": str(self)}
        if self.kind:
            error["type"] = self.kind
        if self.path is not None:
            error["path"] = self.path
        return error


class Variable(str):
    """A `$name` in an argument, resolved against the request's variables."""


@dataclass
class Field:
    name: str
    alias: str
    args: dict[str, Any] = field(default_factory=dict)
    selections: list[Field | Fragment] | None = None


@dataclass
class Fragment:
    on: str | None
    selections: list[Field | Fragment]


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    while pos < len(text):
        match = TOKEN.match(text, pos)
        if not match:
            raise GraphQLError(f"Parse error on \"{text[pos:pos + 10]}\" at offset {pos}")
        pos = match.end()
        kind = match.lastgroup or ""
        if kind != "skip":
            tokens.append((kind, match.group()))
    return tokens


class Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.kind = "query"  # the operation's type: query or mutation

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        tok_kind, tok = self.peek()
        if (value is not None and tok != value) or (kind is not None and tok_kind != kind):
            raise GraphQLError(f"Parse error on \"{tok or 'end of query'}\": expected {value or kind}")
        self.i += 1
        return tok

    def document(self) -> tuple[list[str], list[Field | Fragment]]:
        """(declared variable names, the operation's selections)."""
        declared: list[str] = []
        if self.peek()[1] in ("subscription", "fragment"):
            raise GraphQLError(f"the fake GitHub serves queries and mutations only, not {self.peek()[1]}")
        if self.peek()[1] in ("query", "mutation"):
            self.kind = self.take()
            if self.peek()[0] == "name":
                self.take(kind="name")
            if self.peek()[1] == "(":
                declared = self.variable_definitions()
        selections = self.selection_set()
        if self.peek()[0] != "end":
            raise GraphQLError("the fake GitHub takes one operation per document")
        return declared, selections

    def variable_definitions(self) -> list[str]:
        names = []
        self.take("(")
        while self.peek()[1] != ")":
            self.take("$")
            names.append(self.take(kind="name"))
            self.take(":")
            self.type_ref()
            if self.peek()[1] == "=":
                self.take("=")
                self.value()
        self.take(")")
        return names

    def type_ref(self) -> None:
        if self.peek()[1] == "[":
            self.take("[")
            self.type_ref()
            self.take("]")
        else:
            self.take(kind="name")
        if self.peek()[1] == "!":
            self.take("!")

    def selection_set(self) -> list[Field | Fragment]:
        self.take("{")
        selections: list[Field | Fragment] = []
        while self.peek()[1] != "}":
            if self.peek()[0] == "spread":
                self.take("...")
                if self.peek()[1] != "on":
                    raise GraphQLError("named fragments are not served by the fake GitHub")
                self.take("on")
                selections.append(Fragment(self.take(kind="name"), self.selection_set()))
                continue
            if self.peek()[1] == "@":
                raise GraphQLError("directives are not served by the fake GitHub")
            name = self.take(kind="name")
            alias = name
            if self.peek()[1] == ":":
                self.take(":")
                alias, name = name, self.take(kind="name")
            args = self.arguments() if self.peek()[1] == "(" else {}
            sub = self.selection_set() if self.peek()[1] == "{" else None
            selections.append(Field(name, alias, args, sub))
        self.take("}")
        if not selections:
            raise GraphQLError("Parse error: a selection set cannot be empty")
        return selections

    def arguments(self) -> dict[str, Any]:
        args: dict[str, Any] = {}
        self.take("(")
        while self.peek()[1] != ")":
            name = self.take(kind="name")
            self.take(":")
            args[name] = self.value()
        self.take(")")
        return args

    def value(self) -> Any:
        kind, tok = self.peek()
        if tok == "$":
            self.take("$")
            return Variable(self.take(kind="name"))
        if tok == "[":
            self.take("[")
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
            self.take("]")
            return items
        if tok == "{":
            self.take("{")
            obj = {}
            while self.peek()[1] != "}":
                key = self.take(kind="name")
                self.take(":")
                obj[key] = self.value()
            self.take("}")
            return obj
        self.i += 1
        if kind == "number":
            return float(tok) if any(c in tok for c in ".eE") else int(tok)
        if kind == "string":
            return json.loads(tok)
        if kind == "name":
            return {"true": True, "false": False, "null": None}.get(tok, tok)  # else an enum value, by name
        raise GraphQLError(f"Parse error on \"{tok}\": expected a value")


def resolve_args(args: dict[str, Any], variables: dict[str, Any]) -> dict[str, Any]:
    def one(value: Any) -> Any:
        if isinstance(value, Variable):
            return variables.get(str(value))
        if isinstance(value, list):
            return [one(v) for v in value]
        if isinstance(value, dict):
            return {k: one(v) for k, v in value.items()}
        return value

    return {k: one(v) for k, v in args.items()}


def parse(query: str) -> tuple[list[str], list[Field | Fragment]]:
    return Parser(query).document()


def parse_operation(query: str) -> tuple[str, list[str], list[Field | Fragment]]:
    """(query | mutation, declared variable names, the operation's selections)."""
    parser = Parser(query)
    declared, selections = parser.document()
    return parser.kind, declared, selections


def price(selections: list[Field | Fragment], variables: dict[str, Any],
          connections: frozenset[str]) -> tuple[int, int]:
    """(cost in points, nodes requested) of a query, or GraphQLError for a connection without bounds."""
    requests = nodes = 0

    def walk(items: list[Field | Fragment], fan_out: int) -> None:
        nonlocal requests, nodes
        for item in items:
            if isinstance(item, Fragment):
                walk(item.selections, fan_out)
                continue
            below = fan_out
            if item.name in connections:
                args = resolve_args(item.args, variables)
                size = args.get("first") if args.get("first") is not None else args.get("last")
                if size is None:
                    raise GraphQLError(f"You must provide a `first` or `last` value to properly paginate the "
                                       f"`{item.name}` connection.", "MISSING_PAGINATION_BOUNDARIES")
                if not isinstance(size, int) or not 1 <= size <= 100:
                    raise GraphQLError(f"Requesting {size} records on the `{item.name}` connection exceeds the "
                                       f"`first` limit of 100 records.", "EXCESSIVE_PAGINATION")
                requests += fan_out
                below = fan_out * size
                nodes += below
            if item.selections:
                walk(item.selections, below)

    walk(selections, 1)
    if nodes > NODE_LIMIT:
        raise GraphQLError(f"This query requests up to {nodes:,} possible nodes which exceeds the maximum limit "
                           f"of {NODE_LIMIT:,}.", "MAX_NODE_LIMIT_EXCEEDED")
    return max(1, int(requests / 100 + 0.5)), nodes


class Obj:
    """A GraphQL object for the executor: its type name and its fields, each a value or a function of
    the field's (resolved) arguments."""

    def __init__(self, typename: str, **fields: Any) -> None:
        self.typename = typename
        self.fields = fields


def cursor(offset: int) -> str:
    """GitHub's connection cursors are opaque; the fake's encode the offset like GitHub's search ones do."""
    return base64.b64encode(f"cursor:{offset}".encode()).decode()


def offset_of(after: str | None) -> int:
    if not after:
        return 0
    try:
        return int(base64.b64decode(after).decode().split(":", 1)[1])
    except (ValueError, IndexError, UnicodeDecodeError):
        raise GraphQLError(f"`{after}` does not appear to be a valid cursor.", "INVALID_CURSOR_ARGUMENTS") from None


def connection(typename: str, items: Sequence[Any], args: dict[str, Any], cap: int | None = None) -> Obj:
    """A cursor connection over `items` (`first`/`after` or `last`/`before`); `cap` hides items beyond it."""
    visible = list(items[:cap] if cap is not None else items)
    start = offset_of(args.get("after"))
    end = min(len(visible), offset_of(args.get("before"))) if args.get("before") else len(visible)
    if args.get("first") is not None:
        end = min(end, start + int(args["first"]))
    elif args.get("last") is not None:
        start = max(start, end - int(args["last"]))
    page = visible[start:end]
    return Obj(f"{typename}Connection", totalCount=len(items), nodes=page,
               edges=[Obj(f"{typename}Edge", cursor=cursor(start + i + 1), node=n) for i, n in enumerate(page)],
               pageInfo=Obj("PageInfo", hasNextPage=end < len(visible), hasPreviousPage=start > 0,
                            startCursor=cursor(start + 1) if page else None,
                            endCursor=cursor(end) if page else None))


def execute(root: Obj, selections: list[Field | Fragment], variables: dict[str, Any]
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(data, errors). A field whose resolver raises GraphQLError is null, with the error at its path."""
    errors: list[dict[str, Any]] = []

    def run(obj: Obj, items: list[Field | Fragment], path: list[str | int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for item in items:
            if isinstance(item, Fragment):
                if item.on in (None, obj.typename):
                    out.update(run(obj, item.selections, path))
                continue
            where = [*path, item.alias]
            if item.name == "__typename":
                out[item.alias] = obj.typename
                continue
            if item.name not in obj.fields:
                raise GraphQLError(f"Field '{item.name}' doesn't exist on type '{obj.typename}'", "undefinedField")
            value = obj.fields[item.name]
            try:
                if callable(value):
                    value = value(resolve_args(item.args, variables))
            except GraphQLError as exc:
                exc.path = where
                errors.append(exc.to_json())
                out[item.alias] = None
                continue
            out[item.alias] = shape(value, item, where)
        return out

    def shape(value: Any, item: Field, path: list[str | int]) -> Any:
        if item.selections is None or value is None:
            return value
        if isinstance(value, list):
            return [shape(v, item, [*path, i]) for i, v in enumerate(value)]
        return run(value, item.selections, path)

    return run(root, selections, []), errors
