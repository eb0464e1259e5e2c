"""Reading one raw template table: typed lookups that raise TemplateError naming file, template and field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from quizzer.bank.errors import ExprError, TemplateError, short_repr
from quizzer.bank.expr.expression import Expr, shared
from quizzer.core.checks import did_you_mean

if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


class Reader:
    """Reads one raw template table, raising TemplateError that names file, template and field."""

    def __init__(self, path: str, raw: Mapping[str, Any], template_keys: Mapping[str, bool]) -> None:
        self.path, self.raw, self.template_keys = path, raw, template_keys
        tid = raw.get("id")
        self.tid = tid if isinstance(tid, str) else None

    def error(self, field: str | None, message: str) -> TemplateError:
        return TemplateError(self.path, self.tid, field, message)

    def unknown_keys(self, table: Mapping[str, Any], allowed: set[str] | dict[str, bool], where: str) -> None:
        for key in table:
            if key not in allowed:
                if where and key in self.template_keys:
                    raise self.error(
                        f"{where}{key}",
                        (
                            f"{key!r} is a template field, but it sits inside [{where.rstrip('.')}]: in TOML "
                            "every key after a [table] header belongs to that table; move it above the first "
                            "[table] header"
                        ),
                    )
                close = did_you_mean(key, allowed)
                expected = ", ".join(sorted(allowed))
                raise self.error(f"{where}{key}", f"unknown key{close}; expected one of: {expected}")

    # The value has the type ``kind`` names (or None when it is not required and has no default): the
    # overloads say so to mypy; a tuple of kinds gives Any.
    @overload
    def get(
        self, table: Mapping[str, Any], key: str, kind: type[T], field: str, required: Literal[True] = ...
    ) -> T: ...
    @overload
    def get(
        self, table: Mapping[str, Any], key: str, kind: type[T], field: str, required: bool, default: T
    ) -> T: ...
    @overload
    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type[T],
        field: str,
        required: bool = ...,
        *,
        default: T,
    ) -> T: ...
    @overload
    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type[T],
        field: str,
        required: bool,
        default: None = ...,
    ) -> T | None: ...
    @overload
    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: tuple[type, ...],
        field: str,
        required: bool = ...,
        default: Any = ...,
    ) -> Any: ...
    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        field: str,
        required: bool = True,
        default: Any = None,
    ) -> Any:
        if key not in table:
            if required:
                raise self.error(field, "is required" + self._misplaced(key))
            return default
        value = table[key]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise self.error(field, f"expected {type_name(kind)}, got a boolean ({value})")
        if not isinstance(value, kind):
            raise self.error(
                field, f"expected {type_name(kind)}, got {type(value).__name__} ({short_repr(value)})"
            )
        return value

    def _misplaced(self, key: str) -> str:
        """A hint when a template-level key sits inside a sub-table (TOML's most common trap)."""
        for name, value in self.raw.items():
            tables = value if isinstance(value, list) else [value]
            for table in tables:
                if isinstance(table, dict) and key in table and name != key:
                    return (
                        f" (found {key!r} inside [{name}]: in TOML every key after a [table] header "
                        "belongs to that table; move it above the template's first [table] header)"
                    )
        return ""

    def text(self, key: str, required: bool = True) -> str:
        value = self.get(self.raw, key, str, key, required, "")
        if required and not value.strip():
            raise self.error(key, "must not be empty")
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.get(self.raw, key, (list, str), key, required=False, default=[])
        items = [value] if isinstance(value, str) else value
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(f"{key}[{i}]", f"expected text, got {type(item).__name__}")
        return tuple(items)

    def expr(self, source: Any, field: str) -> Expr:
        if not isinstance(source, str):
            raise self.error(field, f"expected an expression (text), got {type(source).__name__}")
        try:
            return shared(source)
        except ExprError as exc:
            raise self.error(field, str(exc)) from None

    def table_list(self, key: str, allowed: set[str]) -> list[tuple[str, Mapping[str, Any]]]:
        items = self.get(self.raw, key, list, key, required=False, default=[])
        out: list[tuple[str, Mapping[str, Any]]] = []
        for i, item in enumerate(items):
            field = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.error(field, f"expected a table, got {type(item).__name__}")
            self.unknown_keys(item, allowed, f"{field}.")
            out.append((field, item))
        return out


def type_name(kind: type | tuple[type, ...]) -> str:
    names = {
        str: "text",
        int: "an integer",
        float: "a number",
        list: "a list",
        dict: "a table",
        bool: "true/false",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


__all__ = ["Reader", "type_name"]
